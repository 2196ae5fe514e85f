/**
 * Benchmark 8: reading sessions costs what it reads. A home of 2,000 sessions (five-turn runs of ~20 KB each, in 40
 * working directories, modification times spread over a month) and one more whose tool printed 100 MB in one
 * record. Side by side, interleaved, in this one process:
 * - `--continue`'s lookup of the newest session of a directory: the transcripts by modification time, headers read
 *   until one is of the directory (`newestSessionFor`), against the old way (every transcript parsed and summarised,
 *   then the newest of the directory taken), and against reading one header (the floor);
 * - the viewer's session list and `agentloop sessions` (each session's header, first question, turns and how its last
 *   run ended): with the cache beside the transcripts (listCache.ts) warm, as every listing after the first finds it
 *   when nothing changed (a `stat` of each transcript and one file read), and with no cache (the first listing, or
 *   every transcript changed since: the first and last 16 KiB of each read and parsed, then the cache written),
 *   against the old way; and the headers alone (the viewer's first pick);
 * - opening the session with the 100 MB record in the viewer: the timeline over HTTP from `agentloop view ID` (a fresh
 *   process, as a user starts it), and the page
 *   in Chromium until it shows the first step, against what the old server did before it sent anything (read and
 *   parse the whole file, build the timeline, serialise it: 100 MB for the page to take).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentMachine } from '../src/machine/agentMachine.js';
import { readHeader } from '../src/transcript/headers.js';
import { CACHE_NAME, SETTLED_MS } from '../src/transcript/listCache.js';
import { listSessions, newestSessionFor, readTranscript, summarize, type SessionSummary } from '../src/transcript/store.js';
import { TRANSCRIPT_VERSION, type SessionRecord } from '../src/transcript/records.js';
import { graphOf } from '../src/view/server/assets.js';
import { buildTimeline } from '../src/view/timeline/build.js';
import { build } from './build.js';
import { fmt, median, now } from './stats.js';

const CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

export const SESSIONS = 2_000;
const DIRS = 40;
const BIG_MB = 100;

export interface SessionsFigures {
  sessions: number;
  homeMb: number;
  rounds: number;
  /** Median ms per side. */
  continueNew: number;
  continueOld: number;
  oneHeader: number;
  listHeadersNew: number;
  /** The list with its cache warm (nothing changed since the last listing), and with none (every transcript read). */
  listSummaryNew: number;
  listSummaryCold: number;
  listOld: number;
  /** Opening the 100 MB-record session: the timeline over HTTP (ms, KB sent), the page until its first step (ms; NaN without Chromium). */
  openApiMs: number;
  openApiKb: number;
  openPageMs: number;
  /** The old server's work before it sent anything (ms) and what it would have sent (MB). */
  openOldMs: number;
  openOldMb: number;
  /** The load average (1, 5, 15 minutes) when the viewer figures began and when they ended. */
  openLoad: [number[], number[]];
}

const at = (ms: number) => new Date(ms).toISOString();

/** The records of a five-turn run, about 20 KB (a request record carries the system prompt and the tool). */
function sessionRecords(id: string, cwd: string, createdMs: number, toolOutput = 'file-a\nfile-b\n'): SessionRecord[] {
  const t = at(createdMs);
  const system = `You are a coding agent working in ${cwd}. `.repeat(40);
  const body = { model: 'claude-test', max_tokens: 8192, system, tools: [{ name: 'bash', description: 'Run a command. '.repeat(20), input_schema: { type: 'object' } }] };
  const records: SessionRecord[] = [
    { type: 'session', version: TRANSCRIPT_VERSION, id, cwd, createdAt: t, model: 'claude-test' },
    { type: 'prompt', at: t, text: `question of session ${id}` },
    { type: 'message', at: t, index: 0, message: { role: 'user', content: [{ type: 'text', text: `question of session ${id}` }] } },
  ];
  let index = 1;
  for (let turn = 1; turn <= 5; turn++) {
    records.push({ type: 'transition', at: t, state: 'callingModel', event: 'xstate.init', turnCount: turn, transitionReason: null });
    records.push({ type: 'request', at: t, turnCount: turn, messageCount: index, body: body as never, messageCacheMarks: [] });
    const last = turn === 5;
    const use = { type: 'tool_use' as const, id: `toolu_${turn}`, name: 'bash', input: { command: 'ls' } };
    records.push({ type: 'message', at: t, index: index++, message: { role: 'assistant', content: last ? [{ type: 'text', text: 'Done.' }] : [use] } });
    const usage = { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    records.push({ type: 'usage', at: t, turnCount: turn, usage, total: usage });
    if (last) break;
    records.push({ type: 'tool_start', at: t, block: use });
    const result = { type: 'tool_result' as const, tool_use_id: use.id, content: turn === 4 ? toolOutput : 'file-a\nfile-b\n' };
    records.push({ type: 'tool_result', at: t, toolUseId: use.id, name: 'bash', result });
    records.push({ type: 'message', at: t, index: index++, message: { role: 'user', content: [result] } });
  }
  const zero = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  records.push({ type: 'result', at: t, state: 'done', exitReason: 'completed', stopReason: 'end_turn', turnCount: 5, usage: zero, turnUsage: [], durationMs: 10 });
  return records;
}

/** Writes the home: 2,000 sessions and the one with a 100 MB record (the newest), modification times spread. */
function makeHome(): { home: string; cwd: string; bigId: string; bytes: number } {
  const home = mkdtempSync(join(tmpdir(), 'agentloop-bench-sessions-'));
  const dir = join(home, 'sessions');
  mkdirSync(dir);
  const start = Date.now() - 30 * 86_400_000;
  let bytes = 0;
  for (let i = 0; i < SESSIONS; i++) {
    const id = `s${String(i).padStart(5, '0')}-bench`;
    const text = `${sessionRecords(id, `/work/project-${i % DIRS}`, start + i * 1000).map((r) => JSON.stringify(r)).join('\n')}\n`;
    writeFileSync(join(dir, `${id}.jsonl`), text);
    bytes += text.length;
    const mtime = new Date(start + i * 1_200_000);
    utimesSync(join(dir, `${id}.jsonl`), mtime, mtime);
  }
  const bigId = 'big-record-bench';
  const big = 'x'.repeat(BIG_MB * 2 ** 20);
  const text = `${sessionRecords(bigId, '/work/big', Date.now(), big).map((r) => JSON.stringify(r)).join('\n')}\n`;
  writeFileSync(join(dir, `${bigId}.jsonl`), text);
  bytes += text.length;
  // --continue in project-7: its newest session is the 8th newest transcript of the home.
  return { home, cwd: `/work/project-${(SESSIONS - 1 - 7) % DIRS}`, bigId, bytes };
}

/** The old way: every transcript parsed whole and summarised, newest first. */
function oldList(home: string): SessionSummary[] {
  const dir = join(home, 'sessions');
  const out: SessionSummary[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.jsonl')) continue;
    const summary = summarize(readTranscript(join(dir, name)), statSync(join(dir, name)).mtime);
    if (summary) out.push(summary);
  }
  return out.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || b.createdAt.localeCompare(a.createdAt));
}

function timeMs(fn: () => unknown): number {
  const t = now();
  fn();
  return now() - t;
}

/** The page in Chromium until its first step is shown, or NaN when Chromium is not there. */
async function pageOpenMs(url: string): Promise<number> {
  if (!existsSync('/usr/bin/chromium')) return Number.NaN;
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    const page = await browser.newPage();
    await page.goto('about:blank');
    const t = now();
    await page.goto(url);
    await page.waitForSelector('body[data-loaded="true"]', { timeout: 60_000 });
    await page.getByTestId('state').filter({ hasText: /\w/ }).waitFor({ timeout: 60_000 });
    return now() - t;
  } finally {
    await browser.close();
  }
}

export async function benchSessions(rounds: number, log: (line: string) => void): Promise<SessionsFigures> {
  log(`sessions: writing a home of ${SESSIONS.toLocaleString('en-US')} sessions and one with a ${BIG_MB} MB record ...`);
  const { home, cwd, bigId, bytes } = makeHome();
  const written = now();
  try {
    const sides = { continueNew: [] as number[], continueOld: [] as number[], oneHeader: [] as number[], listHeadersNew: [] as number[], listSummaryNew: [] as number[], listSummaryCold: [] as number[], listOld: [] as number[] };
    const cache = join(home, 'sessions', CACHE_NAME);
    const one = join(home, 'sessions', 's00000-bench.jsonl');
    const expected = oldList(home).find((s) => s.cwd === cwd)?.id;
    if (newestSessionFor(home, cwd)?.id !== expected) throw new Error('newestSessionFor and the old way disagree');
    // What the list reads of a transcript is kept once the transcript has been left alone for SETTLED_MS (as a home's are).
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, written + SETTLED_MS + 100 - now())));
    if (JSON.stringify(listSessions(home).map(({ running: _, ...s }) => s)) !== JSON.stringify(oldList(home).map(({ running: _, ...s }) => s))) throw new Error('listSessions and the old way disagree');
    for (let round = 0; round < rounds; round++) {
      sides.continueNew.push(timeMs(() => newestSessionFor(home, cwd)));
      sides.oneHeader.push(timeMs(() => readHeader(one)));
      sides.listHeadersNew.push(timeMs(() => listSessions(home, { read: 'headers' })));
      rmSync(cache, { force: true });
      sides.listSummaryCold.push(timeMs(() => listSessions(home)));
      sides.listSummaryNew.push(timeMs(() => listSessions(home)));
      const old = timeMs(() => oldList(home));
      sides.listOld.push(old);
      sides.continueOld.push(timeMs(() => oldList(home).find((s) => s.cwd === cwd)));
      log(`sessions: round ${round + 1}/${rounds}: --continue ${fmt(sides.continueNew.at(-1) as number, 1)} vs ${fmt(sides.continueOld.at(-1) as number, 0)} ms, list ${fmt(sides.listSummaryNew.at(-1) as number, 0)} (no cache ${fmt(sides.listSummaryCold.at(-1) as number, 0)}) vs ${fmt(old, 0)} ms`);
    }
    const loadBefore = loadavg();
    const open = await openFigures(home, bigId);
    const openLoad: [number[], number[]] = [loadBefore, loadavg()];
    return {
      sessions: SESSIONS + 1,
      homeMb: bytes / 2 ** 20,
      rounds,
      continueNew: median(sides.continueNew),
      continueOld: median(sides.continueOld),
      oneHeader: median(sides.oneHeader),
      listHeadersNew: median(sides.listHeadersNew),
      listSummaryNew: median(sides.listSummaryNew),
      listSummaryCold: median(sides.listSummaryCold),
      listOld: median(sides.listOld),
      ...open,
      openLoad,
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** `agentloop view ID` in a process of its own, as a user starts it (dist/, built first): its URL, and how to stop it. */
async function viewProcess(home: string, id: string): Promise<{ url: string; close(): Promise<void> }> {
  const env = { ...process.env, AGENTLOOP_HOME: home, NO_COLOR: '1' };
  const child = spawn(process.execPath, [CLI, 'view', id, '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const line = /^(http:\/\/\S+)\n/.exec(out);
      if (line) resolve(line[1] as string);
    });
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`agentloop view exited (${code}): ${out}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { url, close: () => (child.kill('SIGINT'), exited) };
}

/**
 * Opening the session with the 100 MB record: the viewer as a user starts it (`agentloop view ID`, a fresh process for
 * each side: the timeline over HTTP, the page until its first step), then the old server's work in this process.
 */
async function openFigures(home: string, id: string): Promise<Pick<SessionsFigures, 'openApiMs' | 'openApiKb' | 'openPageMs' | 'openOldMs' | 'openOldMb'>> {
  const built = build();
  if (!built.ok) throw new Error(`the build failed: ${built.error}`);
  const api = await viewProcess(home, id);
  let openApiMs: number;
  let openApiKb: number;
  try {
    const t = now();
    const response = await fetch(new URL(`/api/sessions/${id}?token=${new URL(api.url).searchParams.get('token')}`, api.url));
    openApiKb = (await response.text()).length / 1024;
    openApiMs = now() - t;
  } finally {
    await api.close();
  }
  const page = await viewProcess(home, id);
  let openPageMs: number;
  try {
    openPageMs = await pageOpenMs(page.url);
  } finally {
    await page.close();
  }
  // The old server's work last: the hundreds of megabytes it leaves to collect are charged to nothing after it.
  let oldBytes = 0;
  const openOldMs = timeMs(() => {
    const transcript = readTranscript(join(home, 'sessions', `${id}.jsonl`));
    oldBytes = JSON.stringify(buildTimeline(transcript.records, graphOf(agentMachine), transcript.problems)).length;
  });
  return { openApiMs, openApiKb, openPageMs, openOldMs, openOldMb: oldBytes / 2 ** 20 };
}

export function sessionsSection(s: SessionsFigures): string {
  return `## 8. Reading sessions

A home of ${s.sessions.toLocaleString('en-US')} sessions (${fmt(s.homeMb, 0)} MB: five-turn runs of ~20 KB in ${DIRS} working
directories, and one whose tool printed ${BIG_MB} MB in one record), written by [bench/sessions.ts](bench/sessions.ts);
each figure is the median of ${s.rounds} interleaved rounds in one process (the files in the page cache: what is
measured is reading and parsing, not the disk).

| What | Now | The old way (every transcript parsed whole) | Now ÷ old |
|---|---|---|---|
| \`--continue\`: the newest session of a directory (the 8th newest of the home) | ${fmt(s.continueNew, 2)} ms | ${fmt(s.continueOld, 0)} ms | ${fmt(s.continueNew / s.continueOld, 4)} |
| The viewer's session list and \`agentloop sessions\` (turns and how each last run ended too), nothing changed since the last listing: a \`stat\` of each transcript and the cache beside them | ${fmt(s.listSummaryNew, 1)} ms | ${fmt(s.listOld, 0)} ms | ${fmt(s.listSummaryNew / s.listOld, 4)} |
| The same with no cache (the first listing, or every transcript changed since): the first and last 16 KiB of each, then the cache written | ${fmt(s.listSummaryCold, 1)} ms | ${fmt(s.listOld, 0)} ms | ${fmt(s.listSummaryCold / s.listOld, 4)} |
| The headers alone (the viewer's first pick when no session is named) | ${fmt(s.listHeadersNew, 1)} ms | ${fmt(s.listOld, 0)} ms | ${fmt(s.listHeadersNew / s.listOld, 4)} |

The list's cache (\`sessions/.list-cache.json\`, src/transcript/listCache.ts) holds what was read of each transcript,
used again only while the transcript's size, modification and change times, inode and device are those it was read
with: a transcript appended, cut or replaced since is read again, alone ([docs/sessions.md](docs/sessions.md)).

Reading one header alone takes ${fmt(s.oneHeader, 3)} ms: \`--continue\` costs ${fmt(s.continueNew / s.oneHeader, 0)} of those (a \`stat\` of
each transcript, then the headers of the newest until one is of the directory).

Opening the session with the ${BIG_MB} MB record in the viewer (\`agentloop view ID\`, a fresh process for each figure,
as a user starts it): its timeline over HTTP took ${fmt(s.openApiMs, 0)} ms and
${fmt(s.openApiKb, 0)} KB (the record's long string cut to 16 Ki characters, the whole line at
\`/api/sessions/ID/lines/N\`); the page in Chromium showed its first step ${Number.isFinite(s.openPageMs) ? `${fmt(s.openPageMs, 0)} ms` : '(no Chromium here)'}
after it was asked for (target ≤ 3 s). The old server read, parsed and serialised the whole transcript for
${fmt(s.openOldMs, 0)} ms before it sent anything, and then sent ${fmt(s.openOldMb, 0)} MB for the page to parse.
The load average (1, 5, 15 minutes) was ${s.openLoad[0].map((n) => fmt(n, 2)).join(', ')} when these viewer figures began and
${s.openLoad[1].map((n) => fmt(n, 2)).join(', ')} when they ended (2 cores).`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(sessionsSection(await benchSessions(Number(process.argv[2] ?? 3), console.log)));
}
