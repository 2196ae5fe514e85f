/**
 * A resumed run's mirror goes on from what the mirror holds of the history it starts from (src/transcript/mirrorChain.ts):
 * nothing it holds is written twice, and what it lacks (a resume's repaired answer to a call a kill cut off) is
 * written after the last message it holds, so that the chain Claude Code's --resume reads is the history.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { openSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/events.js';
import type { MessageParam } from '../../src/core/messages.js';
import { ClaudeMirror, mirrorPath } from '../../src/transcript/claudeMirror.js';
import { mirrorHeld } from '../../src/transcript/mirrorChain.js';

const user = (text: string): MessageParam => ({ role: 'user', content: [{ type: 'text', text }] });
const call: MessageParam = { role: 'assistant', content: [{ type: 'text', text: 'I will.' }, { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'sleep 9' } }] };
const repaired: MessageParam = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'interrupted', is_error: true }, { type: 'text', text: 'go on' }] };
const answer: MessageParam = { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] };
const reply = (index: number) => ({ type: 'reply', turnCount: 1, index, model: 'm', stopReason: 'end_turn', usage: {} }) as unknown as RunEvent;

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** One recorder's mirror: seeded with `seed`, fed `events`, written and finished. */
function write(seed: MessageParam[], events: RunEvent[]): void {
  const mirror = new ClaudeMirror('/p', { configDir: dir, version: '0' });
  mirror.seed(seed);
  for (const event of events) mirror.onEvent(event);
  mirror.write('s');
  mirror.finish();
  mirror.write('s');
  mirror.close();
}

const held = (history: MessageParam[]) => {
  const fd = openSync(mirrorPath(dir, '/p', 's'), 'r');
  try {
    return mirrorHeld(fd, history);
  } finally {
    closeSync(fd);
  }
};
const lineCount = () => readFileSync(mirrorPath(dir, '/p', 's'), 'utf8').trim().split('\n').length;

describe('a resumed mirror', () => {
  it('writes the repaired answer a kill left out after the call it answers, and nothing it holds again', () => {
    dir = mkdtempSync(join(tmpdir(), 'mirror-chain-'));
    // The killed run wrote the prompt and the call, then died in the tool.
    write([], [{ type: 'message', index: 0, message: user('work'), origin: 'prompt' }, { type: 'message', index: 1, message: call, origin: 'reply' }, reply(1)] as RunEvent[]);
    expect(held([user('work'), call, repaired]).held).toBe(2);
    const before = lineCount();
    // The resume starts from the repaired history and answers.
    write([user('work'), call, repaired], [{ type: 'message', index: 3, message: answer, origin: 'reply' }, reply(3)] as RunEvent[]);
    const now = held([user('work'), call, repaired, answer]);
    expect(now.held).toBe(4);
    // The repaired message (a result line and a text line) and the answer: nothing held written twice (no prompt came, so no last-prompt line).
    expect(lineCount() - before).toBe(3);
  });

  it('a mirror that holds the whole history goes on after it', () => {
    dir = mkdtempSync(join(tmpdir(), 'mirror-chain-'));
    write([], [{ type: 'message', index: 0, message: user('work'), origin: 'prompt' }, { type: 'message', index: 1, message: answer, origin: 'reply' }, reply(1)] as RunEvent[]);
    const before = lineCount();
    write([user('work'), answer], [{ type: 'message', index: 2, message: user('more'), origin: 'prompt' }, { type: 'message', index: 3, message: answer, origin: 'reply' }, reply(3)] as RunEvent[]);
    expect(held([user('work'), answer, user('more'), answer]).held).toBe(4);
    expect(lineCount() - before).toBe(3);
  });

  it('a mirror too big to read whole (over 32 MiB) is not read whole: it goes on after its last line, as before', () => {
    dir = mkdtempSync(join(tmpdir(), 'mirror-chain-'));
    const path = mirrorPath(dir, '/p', 's');
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${'x'.repeat(33 * 1024 * 1024)}\n`);
    write([], [{ type: 'message', index: 0, message: user('work'), origin: 'prompt' }, { type: 'message', index: 1, message: call, origin: 'reply' }, reply(1)] as RunEvent[]);
    const big = held([user('work'), call, repaired]);
    expect(big.held).toBe(3);
    expect(big.ends.at(-1)).toBe(big.leaf);
  });
});

