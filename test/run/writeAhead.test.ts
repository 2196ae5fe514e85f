/**
 * Write-ahead: a tool's `tool_start` record is in the transcript before the tool's own code runs,
 * even code that runs at once when `run` is called (an async function runs up to its first await
 * synchronously). A kill at that moment must leave a transcript that knows the tool may have run.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Tool } from '../../src/core/tool.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { startSession } from '../../src/transcript/recorder.js';
import { runAgent } from '../../src/run/runAgent.js';

let home: string;
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('a tool_start record', () => {
  it('is in the transcript when the tool is called, for a tool that starts mid-stream and one that waits for the reply', async () => {
    home = mkdtempSync(join(tmpdir(), 'agentloop-wal-'));
    const recorder = startSession(home, { cwd: home, model: 'scripted' });
    const seenAtCall: Record<string, boolean> = {};
    // Looks at the transcript in the first synchronous moment of its run, before any await.
    const spy = (name: string, safe: boolean): Tool => ({
      name,
      description: 'notes whether its tool_start is on disk when it is called',
      inputSchema: { type: 'object', properties: {} },
      isConcurrencySafe: () => safe,
      run: () => {
        const lines = readFileSync(recorder.path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; block?: { id: string; name: string } });
        seenAtCall[name] = lines.some((r) => r.type === 'tool_start' && r.block?.name === name);
        return Promise.resolve({ content: 'ok', isError: false });
      },
    });
    const model = scriptedModel([
      reply.toolUse([
        { id: 'tu_safe', name: 'safe', input: {} },
        { id: 'tu_unsafe', name: 'unsafe', input: {} },
      ]),
      reply.text('done'),
    ]);
    const result = await runAgent('go', { model: 'scripted', modelCall: model.call, tools: [spy('safe', true), spy('unsafe', false)], cwd: home, session: recorder });
    recorder.close();
    expect(result.state).toBe('done');
    expect(seenAtCall).toEqual({ safe: true, unsafe: true });
  });
});
