/**
 * agentloop's Read, Write, Edit, Glob and Grep answer the calls of cases.ts as Claude Code 2.1.197 did
 * (claudeCode.json, recorded by record.ts): the same tool_result text, the same is_error, the same tool_use_result
 * object (Glob's durationMs aside), in the same state of the folder; and the five definitions the model is sent.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileTools } from '../../../src/tools/fileAccess/fileTools.js';
import { CASES, setUpCase, withCwd, writeFiles } from './cases.js';
import { comparable } from './compare.js';
import type { RecordedResult } from './record.js';

const fixture = JSON.parse(readFileSync(new URL('./claudeCode.json', import.meta.url), 'utf8')) as {
  tools: { name: string; description: string; input_schema: unknown }[];
  cases: Record<string, RecordedResult[]>;
};

const base = mkdtempSync(join(tmpdir(), 'agentloop-files-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("the file tools answer as Claude Code's", () => {
  it('offers the five tools with the definitions Claude Code sends', () => {
    const tools = createFileTools({ cwd: base });
    for (const recorded of fixture.tools) {
      const tool = tools[recorded.name as keyof typeof tools];
      expect({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }).toEqual(recorded);
    }
  });

  for (const fileCase of CASES) {
    it(`${fileCase.name}: ${fileCase.calls.length} calls`, async () => {
      const cwd = realpathSync(mkdtempSync(join(base, `${fileCase.name}-`)));
      const home = mkdtempSync(join(base, 'home-'));
      setUpCase(cwd, fileCase);
      const tools = createFileTools({ cwd, home, env: { HOME: home } });
      const recorded = fixture.cases[fileCase.name] as RecordedResult[];
      for (const [i, call] of fileCase.calls.entries()) {
        if (call.before) writeFiles(cwd, call.before);
        const output = await tools[call.tool].run(withCwd(call.input, '$CWD', cwd), { signal: new AbortController().signal, cwd });
        const got = withCwd({ content: output.blocks ?? output.content, isError: output.isError, data: output.data }, cwd, '$CWD');
        expect(comparable(call, got), `${fileCase.name} #${i}: ${call.tool} ${JSON.stringify(call.input)}`).toEqual(comparable(call, recorded[i] as RecordedResult));
      }
    });
  }
});
