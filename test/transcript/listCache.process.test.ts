/**
 * The session list's cache (src/transcript/listCache.ts) shows nothing less true than every transcript read whole:
 * over random homes (damaged lines, half-written last lines, files with no header), after random changes to the
 * transcripts since the cache was written (appended, cut, replaced, rewritten in place with the same size and the
 * modification time set back, removed, added) and to the cache itself (damaged, cut, of another shape, removed), the
 * list is the one `summarize` gives of each transcript parsed whole. Then real processes: listings killed with
 * SIGKILL at random moments and two at once, while the transcripts change, never leave half a cache; and a home its
 * reader cannot write is listed all the same, as root and as nobody.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, truncateSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CACHE_NAME, SETTLED_MS } from '../../src/transcript/listCache.js';
import { listSessions, readTranscript, summarize, type SessionSummary } from '../../src/transcript/store.js';
import { TRANSCRIPT_VERSION } from '../../src/transcript/records.js';
import { runAs, testUsers } from '../support/users.js';
import { CLI } from '../support/cli.js';

const homes: string[] = [];
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function newHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'agentloop-listcache-'));
  homes.push(home);
  mkdirSync(join(home, 'sessions'));
  return home;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLED_MS + 150));
const at = '2026-01-01T00:00:00.000Z';
const ZERO = { input_tokens: 0, output_tokens: 0 };
const j = (value: unknown) => JSON.stringify(value);

/** A line of a transcript after its header: records of every kind the summary reads, damaged ones, broken JSON. */
const line = fc.oneof(
  fc.string({ maxLength: 12 }).map((text) => j({ type: 'prompt', at, text })),
  fc.nat(9).map((turnCount) => j({ type: 'transition', at, state: 'callingModel', event: 'x', turnCount, transitionReason: null })),
  fc.tuple(fc.constantFrom('completed', 'max_turns', 'error', null), fc.nat(9)).map(([exitReason, turnCount]) =>
    j({ type: 'result', at, state: 'done', exitReason, stopReason: null, turnCount, usage: ZERO, turnUsage: [], durationMs: 1 }),
  ),
  fc.nat(9).map((turnCount) => j({ type: 'resume', at, turnCount, repaired: [] })),
  fc.nat(3).map((index) => j({ type: 'message', at, index, message: { role: 'user', content: 'q' } })),
  fc.constantFrom('{"type":"usage"}', '[1,2]', '{"type":"result","at":"x"}', '{"type":"later","at":"x"}', '{"type":"mess', 'not json', ''),
);

/** A transcript: a header (most of the time), some lines, and a last line whole or torn. */
const transcript = (id: string) =>
  fc.tuple(fc.boolean(), fc.option(fc.constantFrom('demo', 'x'), { nil: undefined }), fc.array(line, { maxLength: 14 }), fc.constantFrom('\n', '', '\n{"type":"tran')).map(
    ([headed, label, lines, end]) => {
      const header = j({ type: 'session', version: TRANSCRIPT_VERSION, id, cwd: `/w/${id.length % 3}`, createdAt: at, model: 'm', ...(label ? { label } : {}) });
      return `${[...(headed ? [header] : []), ...lines].join('\n')}${end}`;
    },
  );

/** The list as every transcript parsed whole gives it (the transcripts here are short: the list reads them whole too). */
function wholeList(home: string): SessionSummary[] {
  const dir = join(home, 'sessions');
  const out: { summary: SessionSummary; mtimeMs: number }[] = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.jsonl'))) {
    const stat = statSync(join(dir, name));
    const summary = summarize(readTranscript(join(dir, name)), stat.mtime);
    if (summary) out.push({ summary, mtimeMs: stat.mtimeMs });
  }
  return out.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.summary.path < b.summary.path ? 1 : -1)).map((s) => s.summary);
}

/** A change to a transcript or to the cache, made after the cache was written. */
type Change = { kind: 'append' | 'torn' | 'cut' | 'replace' | 'inPlace' | 'remove' | 'add'; file: number; text: string; at: number } | { kind: 'cache'; how: number };
const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constantFrom('append', 'torn', 'cut', 'replace', 'inPlace', 'remove', 'add'), file: fc.nat(), text: transcript('added'), at: fc.nat() }),
  fc.record({ kind: fc.constant('cache' as const), how: fc.nat(4) }),
);

function apply(home: string, c: Change): void {
  const dir = join(home, 'sessions');
  const cache = join(dir, CACHE_NAME);
  if (c.kind === 'cache') {
    if (c.how === 0) writeFileSync(cache, 'not json at all');
    else if (c.how === 1) writeFileSync(cache, existsSync(cache) ? readFileSync(cache).subarray(0, 100) : '{"version":1,"entries":{"s0.js');
    else if (c.how === 2) writeFileSync(cache, j({ version: 1, entries: { 's0.jsonl': { key: 'x', summary: 3 }, 's1.jsonl': [] } }));
    else if (c.how === 3) writeFileSync(cache, j({ version: 99, entries: {} }));
    else rmSync(cache, { force: true });
    return;
  }
  const names = readdirSync(dir).filter((n) => n.endsWith('.jsonl')).sort();
  const name = names[c.file % Math.max(1, names.length)];
  if (c.kind === 'add' || name === undefined) return writeFileSync(join(dir, `n${c.at}.jsonl`), c.text);
  const path = join(dir, name);
  const size = statSync(path).size;
  const extra = c.text.replace(/^[^\n]*\n?/, ''); // the new text less its header
  if (c.kind === 'append') appendFileSync(path, `\n${extra}\n`);
  else if (c.kind === 'torn') appendFileSync(path, '{"type":"prompt","at":"x","te');
  else if (c.kind === 'cut') truncateSync(path, c.at % (size + 1));
  else if (c.kind === 'remove') rmSync(path);
  else if (c.kind === 'replace') {
    writeFileSync(`${path}.new`, readFileSync(path, 'utf8').replace(/"(completed|max_turns|error)"/, '"aborted"') + extra);
    renameSync(`${path}.new`, path);
  } else if (size > 0) {
    // The same size, the modification time set back: only the change time and the bytes say it changed (the header's
    // model, or a byte anywhere when there is no header).
    const before = statSync(path);
    const bytes = readFileSync(path);
    const model = bytes.indexOf('"model":"m"');
    const position = model === -1 ? c.at % size : model + 9;
    const fd = openSync(path, 'r+');
    writeSync(fd, bytes[position] === 0x30 ? '1' : '0', position);
    closeSync(fd);
    utimesSync(path, before.atime, before.mtime);
  }
}

describe('the session list with its cache', () => {
  it('is what every transcript parsed whole gives, over random homes, after random changes to the transcripts and to the cache', async () => {
    const home0 = fc.array(fc.nat(), { minLength: 3, maxLength: 24 }).chain((ids) => fc.tuple(...ids.map((_, i) => transcript(`s${i}`))));
    await fc.assert(
      fc.asyncProperty(home0, fc.array(fc.array(change, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }), async (texts, rounds) => {
        const home = newHome();
        const dir = join(home, 'sessions');
        // Modification times in whole milliseconds, that a change in place can set back exactly.
        texts.forEach((text, i) => {
          writeFileSync(join(dir, `s${i}.jsonl`), text);
          utimesSync(join(dir, `s${i}.jsonl`), new Date(1e12 + i * 1000), new Date(1e12 + i * 1000));
        });
        await settle(); // the transcripts' summaries may be kept now
        expect(listSessions(home)).toEqual(wholeList(home));
        expect(readdirSync(dir)).toContain(CACHE_NAME);
        for (const changes of rounds) {
          for (const c of changes) apply(home, c);
          expect(listSessions(home)).toEqual(wholeList(home));
          expect(listSessions(home)).toEqual(wholeList(home)); // from the cache the first listing wrote
        }
        rmSync(home, { recursive: true, force: true });
      }),
      { numRuns: 5, endOnFailure: true }, // no shrinking: each run waits for its transcripts to settle
    );
  }, 120_000);
});

const LIST_JS = fileURLToPath(new URL('../../dist/transcript/list.js', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A process that lists `home` over and over (dist/, built by the tests' setup), as `agentloop sessions` and the viewer
 * do; `listed` resolves after its first listing.
 */
function lister(home: string): { child: ChildProcess; listed: Promise<unknown> } {
  const code = `import { listSessions } from ${j(LIST_JS)}; for (;;) { listSessions(${j(home)}); process.stdout.write('.'); }`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'ignore'] });
  return { child, listed: new Promise((resolve) => child.stdout?.once('data', resolve)) };
}

/** A home of `count` random transcripts, from a fixed seed. */
function writeHome(count: number, seed: number): string {
  const home = newHome();
  fc.sample(fc.tuple(...Array.from({ length: count }, (_, i) => transcript(`s${i}`))), { numRuns: 1, seed })[0]?.forEach((text, i) =>
    writeFileSync(join(home, 'sessions', `s${i}.jsonl`), text),
  );
  return home;
}

describe('each change since the cache was written', () => {
  it('is seen: appended, torn, cut, replaced, rewritten in place with the modification time set back, removed, added; a damaged cache is read again', async () => {
    const home = newHome();
    const dir = join(home, 'sessions');
    const ended = (id: string) =>
      `${[
        j({ type: 'session', version: TRANSCRIPT_VERSION, id, cwd: '/w', createdAt: at, model: 'm' }),
        j({ type: 'prompt', at, text: `question ${id}` }),
        j({ type: 'transition', at, state: 'callingModel', event: 'x', turnCount: 2, transitionReason: null }),
        j({ type: 'result', at, state: 'done', exitReason: 'completed', stopReason: null, turnCount: 2, usage: ZERO, turnUsage: [], durationMs: 1 }),
      ].join('\n')}\n`;
    for (let i = 0; i < 8; i++) {
      writeFileSync(join(dir, `s${i}.jsonl`), ended(`s${i}`));
      utimesSync(join(dir, `s${i}.jsonl`), new Date(1e12 + i * 1000), new Date(1e12 + i * 1000));
    }
    await settle();
    const first = listSessions(home);
    expect(first).toEqual(wholeList(home));
    const changes: Change[] = ['append', 'torn', 'cut', 'replace', 'inPlace', 'remove', 'add'].map((kind, file) => ({ kind, file, text: ended('x'), at: 150 }) as Change);
    for (const c of changes) apply(home, c);
    const now = wholeList(home);
    expect(listSessions(home)).toEqual(now);
    // every change shows: s0 interrupted by its new prompt, s1 by its torn line, s2 cut before its result, s3 replaced
    // (aborted), s4's model rewritten in place (m to 0), s5 gone, n150 new; s6 and s7 as they were
    const byId = new Map(now.map((summary) => [summary.id, summary]));
    // A session is listed by its file's name, what the store finds it by (n150's header says `x`).
    expect([...byId.keys()].sort()).toEqual(['n150', 's0', 's1', 's2', 's3', 's4', 's6', 's7']);
    for (const id of ['s0', 's1', 's2', 's3', 's4']) expect(byId.get(id)).not.toEqual(first.find((s) => s.id === id));
    expect(byId.get('s4')).toMatchObject({ model: '0', updatedAt: new Date(1e12 + 4000).toISOString() });
    for (const how of [0, 1, 2, 3, 4]) {
      apply(home, { kind: 'cache', how });
      expect(listSessions(home)).toEqual(now);
    }
    // a pipe or a link to an endless file in the cache's place: neither blocks the list nor fills it
    for (const make of [() => execFileSync('mkfifo', [join(dir, CACHE_NAME)]), () => symlinkSync('/dev/zero', join(dir, CACHE_NAME))]) {
      rmSync(join(dir, CACHE_NAME), { force: true });
      make();
      apply(home, { kind: 'torn', file: 6, text: '', at: 0 });
      expect(listSessions(home)).toEqual(wholeList(home));
      expect(statSync(join(dir, CACHE_NAME)).isFile()).toBe(true); // written over
    }
  }, 30_000);
});

describe('the cache under real processes', () => {
  it('is never left half written by listings killed with SIGKILL at random moments, two at once, while transcripts change', async () => {
    const home = writeHome(300, 7);
    const dir = join(home, 'sessions');
    await settle();
    const children = [lister(home), lister(home)];
    let wholeCaches = 0;
    try {
      for (let i = 0; i < 60; i++) {
        const k = i % 2;
        const killed = children[k] as ReturnType<typeof lister>;
        await killed.listed;
        appendFileSync(join(dir, `s${(i * 7) % 300}.jsonl`), `\n${j({ type: 'prompt', at, text: `again ${i}` })}\n`);
        if (i % 3 === 0) rmSync(join(dir, CACHE_NAME), { force: true }); // the next listing writes the whole cache
        await sleep((i * 37) % 50);
        const exited = new Promise((resolve) => killed.child.once('exit', resolve));
        killed.child.kill('SIGKILL');
        await exited;
        children[k] = lister(home);
        let text: string | undefined;
        try {
          text = readFileSync(join(dir, CACHE_NAME), 'utf8');
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
        if (text !== undefined) expect(() => JSON.parse(text)).not.toThrow(); // a reader sees a whole cache, or none
        if (text !== undefined) wholeCaches++;
      }
    } finally {
      for (const { child } of children) child.kill('SIGKILL');
    }
    expect(wholeCaches).toBeGreaterThan(0);
    expect(listSessions(home)).toEqual(wholeList(home));
    // A temporary file left by a writer killed before its rename is removed by a later write, once it is old.
    const left = join(dir, `${CACHE_NAME}.999999.killed.tmp`);
    writeFileSync(left, '{"version":1,"entr');
    const old = new Date(Date.now() - 3_600_000);
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.tmp'))) utimesSync(join(dir, name), old, old);
    // With no cache the next listing writes one (a transcript appended to instead may not be kept yet: one changed
    // in the last 2 s is not, and then the cache is not written, as a listing on a busy machine showed).
    rmSync(join(dir, CACHE_NAME), { force: true });
    expect(listSessions(home)).toEqual(wholeList(home));
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  }, 120_000);
});

describe.each(testUsers())('agentloop sessions as $name', (user) => {
  it.skipIf(user.skip !== undefined)('lists a home it may not be able to write, and one whose cache it cannot read, as every transcript read whole gives it', async () => {
    const home = writeHome(40, 11);
    const dir = join(home, 'sessions');
    for (const name of readdirSync(dir)) chmodSync(join(dir, name), 0o644);
    chmodSync(dir, 0o755);
    chmodSync(home, 0o755);
    await settle();
    const list = async () => {
      const run = await runAs(user, process.execPath, [CLI, 'sessions', '--output-format', 'json'], { cwd: home, env: { PATH: process.env.PATH, AGENTLOOP_HOME: home, NO_COLOR: '1' } });
      expect(run.stderr).toBe('');
      return JSON.parse(run.stdout) as unknown;
    };
    const whole = JSON.parse(j(wholeList(home))) as unknown;
    expect(await list()).toEqual(whole);
    // nobody cannot write root's home: nothing is kept, and the list is whole all the same
    expect(readdirSync(dir).includes(CACHE_NAME)).toBe(user.owner === undefined);
    listSessions(home); // this process (root, or the user itself) keeps the cache, mode 0600
    expect(statSync(join(dir, CACHE_NAME)).mode & 0o777).toBe(0o600);
    expect(await list()).toEqual(whole);
    if (user.owner !== undefined) chownSync(dir, 65534, 65534); // a home nobody can write, with a cache it cannot read
    expect(await list()).toEqual(whole);
  }, 60_000);
});
