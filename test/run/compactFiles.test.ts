/**
 * The files read, attached after a compaction, for a library user: in a run (the machine's `compacting` state,
 * through runAgent) and by hand (`compactConversation`), with the run's permission rules kept (a file they deny is
 * never attached).
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { MessageParam } from '../../src/core/messages.js';
import { isCompactRequest } from '../../src/history/compact.js';
import { readAttachment } from '../../src/history/compactFiles.js';
import { historyProblems } from '../../src/history/validate.js';
import { compactConversation } from '../../src/run/compactConversation.js';
import { runAgent } from '../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { createFileTools } from '../../src/tools/fileAccess/fileTools.js';
import { journalledModel, journalledTools, journalTimers } from '../../src/durable/journal.js';
import { invocation, type Attempt } from '../durable/memoryJournal.js';
import { print, PRINT_WINDOW, printUses } from '../support/compaction.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function folder(): string {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-compact-files-'));
  mkdirSync(join(dir, 'secret'));
  writeFileSync(join(dir, 'notes.txt'), 'AAA\n');
  writeFileSync(join(dir, 'secret', 'key.txt'), 'KEY=1\n');
  return dir;
}

const firstText = (messages: readonly MessageParam[]) => JSON.stringify(messages[0]);

describe('files read, attached after a compaction', () => {
  it('in a run: the request after the boundary carries the file as it is now, in the summary message', async () => {
    const cwd = folder();
    const { Read } = createFileTools({ cwd });
    const model = scriptedModel(
      [
        reply.toolUse([{ id: 'toolu_r', name: 'Read', input: { file_path: join(cwd, 'notes.txt') } }]),
        ...printUses(),
        reply.text('printed'),
      ],
      { contextWindow: PRINT_WINDOW },
    );
    const run = await runAgent('read notes, print five chunks', { model: 'scripted', modelCall: model.call, tools: [Read, print], cwd, contextWindow: PRINT_WINDOW });
    expect(run.context.exitReason).toBe('completed');
    const at = model.requests.findIndex(isCompactRequest);
    expect(at).toBeGreaterThan(0);
    const after = model.requests[at + 1]?.messages ?? [];
    expect(firstText(after)).toContain('This session is being continued');
    expect(firstText(after)).toContain(JSON.stringify(readAttachment(join(cwd, 'notes.txt'), '1\tAAA\n2\t')).slice(1, -1));
    expect(historyProblems(after)).toEqual([]);
  });

  it('in a durable run: the reads are journalled steps, so a replay attaches what the first attempt read', async () => {
    const cwd = folder();
    const { Read } = createFileTools({ cwd });
    const steps = () => [
      reply.toolUse([{ id: 'toolu_r', name: 'Read', input: { file_path: join(cwd, 'notes.txt') } }]),
      ...printUses(),
      reply.text('printed'),
    ];
    const go = (a: Attempt) =>
      Promise.race([
        runAgent('read notes, print five chunks', {
          model: 'scripted',
          modelCall: journalledModel(a.steps, scriptedModel(steps(), { contextWindow: PRINT_WINDOW }).call),
          tools: journalledTools(a.steps, [Read, print]),
          clock: journalTimers(a.journal),
          cwd,
          contextWindow: PRINT_WINDOW,
          seed: 1,
        }),
        a.mismatch,
      ]);
    const inv = invocation();
    const first = inv.attempt([]);
    const ran = await go(first);
    expect(ran.context.exitReason).toBe('completed');
    const names = first.entries.map((e) => e.name);
    // The model's Read, then after each summary the re-read of notes.txt: a journalled call of its own.
    expect(names.filter((n) => n === 'tool Read starts').length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(ran.context.messages[0])).toContain('1\\tAAA');
    writeFileSync(join(cwd, 'notes.txt'), 'CHANGED\n');
    const replay = inv.attempt(first.entries);
    const again = await go(replay);
    expect(replay.mismatches).toEqual([]);
    expect(again.context.messages).toEqual(ran.context.messages);
    expect(JSON.stringify(again.context.messages)).not.toContain('CHANGED');
  });

  it('by hand: compactConversation re-reads with the Read tool of its tools, a file the rules deny left out', async () => {
    const cwd = folder();
    const { Read } = createFileTools({ cwd });
    const messages: MessageParam[] = [{ role: 'user', content: 'read both' }];
    for (const [i, path] of ['notes.txt', 'secret/key.txt'].entries()) {
      const input = { file_path: join(cwd, path) };
      const output = await Read.run(input, { signal: new AbortController().signal, cwd });
      messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Read', input }] });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: output.content }] });
    }
    messages.push({ role: 'assistant', content: [{ type: 'text', text: 'read' }] });
    writeFileSync(join(cwd, 'notes.txt'), 'CHANGED\n');
    // Changed later than the read's millisecond (Read tells a change by the file's time).
    utimesSync(join(cwd, 'notes.txt'), new Date(), new Date(Date.now() + 5000));
    const model = scriptedModel([], { summary: '<summary>read two files</summary>' });
    const base = { model: 'scripted', modelCall: model.call, tools: [Read], cwd };
    const boundary = await compactConversation(messages, { ...base, permissions: { deny: ['Read(secret/**)'] } });
    expect(firstText(boundary.messages)).toContain('1\\tCHANGED');
    expect(firstText(boundary.messages)).not.toContain('KEY=1');
    // Without the rule both are attached (the test sees the denial, not a file that cannot be read).
    const open = await compactConversation(messages, base);
    expect(firstText(open.messages)).toContain('KEY=1');
  });
});
