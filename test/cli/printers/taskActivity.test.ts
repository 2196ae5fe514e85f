/**
 * The `description` of a subagent's `system/task_progress` line for each kind of tool, as Claude Code 2.1.197 writes
 * it (the recording is test/cli/sdk/claudeCode.json, scenario `agent tools`, compared by sequences.process.test.ts);
 * here the edges the recording does not reach: a path outside the working directory, a command of exactly 50
 * characters and of 51, a call without the field its words need.
 */
import { describe, expect, it } from 'vitest';
import { activityOf } from '../../../src/cli/printers/taskActivity.js';

const place = { cwd: '/w/project', taskDescription: 'Check files' };
const use = (name: string, input: Record<string, unknown>) => ({ type: 'tool_use' as const, id: 't', name, input });

describe('activityOf', () => {
  it("shows a file's path from the working directory when under it, else as given", () => {
    expect(activityOf(use('Read', { file_path: '/w/project/src/a.ts' }), 'Read', place)).toBe('Reading src/a.ts');
    expect(activityOf(use('Edit', { file_path: '/w/other/a.ts' }), 'Edit', place)).toBe('Editing /w/other/a.ts');
    expect(activityOf(use('Write', { file_path: '/w/project-b/a.ts' }), 'Write', place)).toBe('Writing /w/project-b/a.ts');
  });

  it('cuts a command longer than 50 characters to 49 and …; a description goes first', () => {
    expect(activityOf(use('bash', { command: 'x'.repeat(50) }), 'Bash', place)).toBe(`Running ${'x'.repeat(50)}`);
    expect(activityOf(use('bash', { command: 'x'.repeat(51) }), 'Bash', place)).toBe(`Running ${'x'.repeat(49)}…`);
    expect(activityOf(use('bash', { command: 'ls', description: 'List files' }), 'Bash', place)).toBe('Running List files');
  });

  it("gives the task's description for a tool without words (MCP, defineTool, Agent) and for a call missing its field", () => {
    expect(activityOf(use('mcp__calc__add', { a: 1 }), 'mcp__calc__add', place)).toBe('Check files');
    expect(activityOf(use('Agent', { prompt: 'p' }), 'Agent', place)).toBe('Check files');
    expect(activityOf(use('Glob', {}), 'Glob', place)).toBe('Check files');
    expect(activityOf(use('Grep', { pattern: 'TODO' }), 'Grep', place)).toBe('Searching for TODO');
  });
});
