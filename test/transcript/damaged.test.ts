/**
 * Transcripts of valid JSON but the wrong shape (issue 11, item 4): every damaged record is
 * reported by its line number and skipped; resuming, listing and the viewer's timeline never
 * crash, and nothing allocates in proportion to a number in the file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyProblems } from '../../src/history/validate.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { startSession } from '../../src/transcript/recorder.js';
import { restoreConversation } from '../../src/transcript/resume.js';
import { runAgent } from '../../src/run/runAgent.js';
import { MAX_PROBLEMS, parseTranscript, readTranscript, summarize } from '../../src/transcript/store.js';
import { agentMachine } from '../../src/machine/agentMachine.js';
import { graphOf } from '../../src/view/server/assets.js';
import { buildTimeline } from '../../src/view/timeline/build.js';
import { echoTool } from '../support/drive.js';

const graph = graphOf(agentMachine);
let home: string;
/** A real transcript: two tool turns and an answer, as JSON lines. */
let lines: string[];

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'agentloop-damaged-'));
  const model = scriptedModel([
    reply.toolUse([{ id: 't1', name: 'echo', input: { text: 'a' } }]),
    reply.toolUse([{ id: 't2', name: 'echo', input: { text: 'b' } }]),
    reply.text('Finished.'),
  ]);
  const recorder = startSession(home, { cwd: '/w', model: 'm', prompt: 'echo twice' }, { durable: false });
  const result = await runAgent('echo twice', { model: 'm', modelCall: model.call, tools: [echoTool()], cwd: home, onEvent: recorder.onEvent });
  recorder.finish(result);
  recorder.close();
  const transcript = readTranscript(recorder.path);
  expect(transcript.problems).toEqual([]);
  lines = transcript.records.map((r) => JSON.stringify(r));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** Everything that reads a transcript, as the CLI and the viewer do. */
function readAll(text: string) {
  const transcript = parseTranscript(text, 'x.jsonl');
  const restored = restoreConversation(transcript.records);
  historyProblems(restored.messages);
  const timeline = buildTimeline(transcript.records, graph, transcript.problems, transcript.damaged);
  JSON.stringify(timeline); // what the viewer's server sends
  summarize(transcript, new Date());
  return { transcript, restored, timeline };
}

const firstMessageLine = () => lines.findIndex((l) => l.includes('"type":"message"'));

describe('a damaged record', () => {
  const cases: Array<[string, (record: Record<string, unknown>) => void, RegExp]> = [
    ['index 1000000000', (r) => (r.index = 1_000_000_000), /message record: index: 1000000000 is beyond the \d+ lines read so far/],
    ['index 2**32 - 2', (r) => (r.index = 2 ** 32 - 2), /index: 4294967294 is beyond/],
    ['index "__proto__"', (r) => (r.index = '__proto__'), /index: string, not a count/],
    ['index -1', (r) => (r.index = -1), /index: -1, not a count/],
    ['index 1.5', (r) => (r.index = 1.5), /index: 1.5, not a count/],
    ['message null', (r) => (r.message = null), /message: null, not an object/],
    ['content 123', (r) => ((r.message as Record<string, unknown>).content = 123), /content: number, not a string; or number, not an array/],
    ['a block that is a number', (r) => ((r.message as Record<string, unknown>).content = [7]), /content: .*\[0\]: number, not an object/],
    ['a text block without text', (r) => ((r.message as Record<string, unknown>).content = [{ type: 'text' }]), /\(text\) text is missing/],
    ['role "system"', (r) => ((r.message as Record<string, unknown>).role = 'system'), /role: "system", not "user" or "assistant"/],
    ['type "bogus"', (r) => (r.type = 'bogus'), /unknown record type "bogus"/],
  ];

  it.each(cases)('%s: reported by its line number and skipped', (_name, damage, problem) => {
    const i = firstMessageLine();
    const record = JSON.parse(lines[i] as string) as Record<string, unknown>;
    damage(record);
    const text = [...lines.slice(0, i), JSON.stringify(record), ...lines.slice(i + 1)].join('\n');
    const { transcript, restored } = readAll(`${text}\n`);
    expect(transcript.problems).toHaveLength(1);
    expect(transcript.problems[0]).toMatch(new RegExp(`^line ${i + 1}: `));
    expect(transcript.problems[0]).toMatch(problem);
    expect(transcript.problems[0]).toMatch(/: skipped$/);
    expect(transcript.records).toHaveLength(lines.length - 1);
    // Kept as read, in its place among the records, for a reader that shows broken records (the viewer).
    expect(transcript.damaged).toEqual([{ line: i + 1, after: i, value: record, problem: expect.any(String) }]);
    // The first message is gone, so nothing can be rebuilt past it; what is there is valid.
    expect(restored.messages).toEqual([]);
    expect(restored.repaired).toEqual(['messages from index 0 on were unreadable and are left out']);
  });

  it('a huge index later in the file leaves the history as it was', () => {
    const extra = JSON.stringify({ type: 'message', at: 'x', index: 20, message: { role: 'user', content: 'late' } });
    const { transcript, restored } = readAll([...lines, extra].join('\n'));
    expect(transcript.problems).toEqual([]); // 20 is within the lines read: a legal index, only past a gap
    expect(restored.messages).toHaveLength(6);
    expect(restored.repaired).toEqual(['messages from index 6 on were unreadable and are left out']);
  });

  it('a header of the wrong shape or version makes the file no session', () => {
    const header = JSON.parse(lines[0] as string) as Record<string, unknown>;
    for (const damage of [{ version: 2 }, { id: 5 }, { cwd: null }]) {
      const { transcript } = readAll([JSON.stringify({ ...header, ...damage }), ...lines.slice(1)].join('\n'));
      expect(transcript.header).toBeUndefined();
      expect(transcript.problems[0]).toBe('the transcript does not start with a session header');
      expect(transcript.problems[1]).toMatch(/^line 1: session record: /);
      expect(summarize(transcript, new Date())).toBeUndefined();
    }
  });

  it('reports at most MAX_PROBLEMS lines, then how many more', () => {
    const junk = Array.from({ length: 500 }, (_, i) => (i % 2 ? '{"type":7}' : '[1,2]'));
    const { transcript } = readAll([...lines, ...junk].join('\n'));
    expect(transcript.problems).toHaveLength(MAX_PROBLEMS + 1);
    expect(transcript.problems.at(-1)).toBe(`${500 - MAX_PROBLEMS} more unreadable lines skipped`);
  });
});

/** Every place in a JSON value, as a path of keys. */
function pathsOf(value: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  const here = [path];
  if (Array.isArray(value)) return here.concat(...value.map((v, i) => pathsOf(v, [...path, i])));
  if (typeof value === 'object' && value !== null) return here.concat(...Object.entries(value).map(([k, v]) => pathsOf(v, [...path, k])));
  return here;
}

function setAt(root: unknown, path: Array<string | number>, value: unknown): unknown {
  if (path.length === 0) return value;
  const [key, ...rest] = path as [string | number, ...Array<string | number>];
  const copy = (Array.isArray(root) ? [...root] : { ...(root as object) }) as Record<string | number, unknown>;
  copy[key] = setAt(copy[key], rest, value);
  return copy;
}

const oddValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom('__proto__', 'constructor', 1e9, 2 ** 32, -1, 0.5, null, [], {}, '', 'tool_use', 'message'),
);

describe('random records of the wrong shape (property)', () => {
  it('never crash resume, the listing or the timeline; every problem names its line', () => {
    const mutation = fc.record({
      line: fc.nat(),
      place: fc.nat(),
      value: oddValue,
      mode: fc.constantFrom('set', 'insert', 'replace'),
    });
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), (mutations) => {
        const damaged = [...lines];
        for (const m of mutations) {
          const at = m.line % damaged.length;
          if (m.mode === 'insert') {
            const type = ['message', 'tool_start', 'request', 'resume', 'prompt', 'decision', 'transition'][m.place % 7];
            damaged.splice(at, 0, JSON.stringify({ type, at: 'x', index: m.value, message: m.value, block: m.value, text: m.value }));
          } else if (m.mode === 'replace') {
            damaged[at] = JSON.stringify(m.value);
          } else {
            const record = JSON.parse(damaged[at] as string) as unknown;
            const paths = pathsOf(record).filter((p) => p.length > 0);
            if (paths.length > 0) damaged[at] = JSON.stringify(setAt(record, paths[m.place % paths.length] as Array<string | number>, m.value));
          }
        }
        const { transcript, restored, timeline } = readAll(damaged.join('\n'));
        for (const problem of transcript.problems) {
          expect(problem).toMatch(/^(line \d+( \(the last, unfinished\))?: .*: skipped|the transcript does not start with a session header|\d+ more unreadable line\(s\) skipped)$/);
        }
        // What reaches the readers has the shape they rely on.
        for (const m of [...restored.messages, ...timeline.messages.map((t) => t.message)]) {
          expect(['user', 'assistant']).toContain(m.role);
          if (typeof m.content !== 'string') for (const b of m.content) expect(typeof b.type).toBe('string');
        }
        for (const t of timeline.messages) expect(Number.isSafeInteger(t.index) && t.index >= 0 && t.index < damaged.length + 1).toBe(true);
        // Resuming refuses or goes on with a valid history, never anything else.
        if (restored.problems.length === 0 && restored.messages.length > 0) expect(historyProblems(restored.messages)).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });
});
