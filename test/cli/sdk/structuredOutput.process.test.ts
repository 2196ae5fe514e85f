/**
 * Structured output (the Agent SDK's `outputFormat`, the CLI's `--json-schema`), with the real SDK driving the built CLI
 * against the local Messages API, as Claude Code 2.1.197 does it (test/cli/sdk/claudeCode.json holds its sequences for the
 * same programs; src/cli/setup/structuredOutput.ts says what it does): the `StructuredOutput` tool offered with the schema,
 * an invalid answer refused with Ajv's words and answered again, a valid one ending the turn with `structured_output`,
 * the reminder when no call comes, and `error_max_structured_output_retries` when the calls run out.
 */
import type { Options, SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { lastToolResults, resultText } from '../../support/agentServer.js';
import { runCli } from '../../support/cli.js';
import type { MessagesServer, RequestBody } from '../../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../../support/project.js';
import { collectSdk } from '../../support/sdkCollect.js';
import { NUMBER_SCHEMA } from './scenarios.js';

let project: CliProject;
let server: MessagesServer;
cliProjectPerTest('structured', (p) => { project = p; server = p.server; }, { noViolations: true });

const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], stop_reason: 'end_turn' as const });
const call = (id: string, input: Record<string, unknown>) => ({ content: [{ type: 'tool_use' as const, id, name: 'StructuredOutput', input }], stop_reason: 'tool_use' as const });
const outputFormat = { outputFormat: { type: 'json_schema', schema: NUMBER_SCHEMA } } as Options;
const resultOf = (messages: SDKMessage[]) => messages.find((m) => m.type === 'result') as Record<string, unknown> | undefined;
const toolResult = (index: number) => lastToolResults(server.requests[index]?.body as RequestBody)[0]!;
const lastUserText = (index: number) => JSON.stringify((server.requests[index]?.body as RequestBody).messages.at(-1)?.content);

describe('structured output through the Agent SDK', () => {
  it('offers StructuredOutput with the schema; an invalid answer gets Ajv\'s errors, a valid one ends the turn in structured_output', async () => {
    server.enqueue(call('s1', { n: 'three', extra: true }), call('s2', { n: 3 }), answer('Never asked.'));
    const { messages, thrown } = await collectSdk(project, 'count', { model: 'claude-test', ...outputFormat });
    expect(thrown).toBeUndefined();
    const offered = (server.requests[0]?.body as RequestBody).tools?.find((t) => 'name' in t && t.name === 'StructuredOutput');
    expect(offered).toMatchObject({ input_schema: NUMBER_SCHEMA, description: expect.stringContaining('You MUST call this tool exactly once') });
    expect(toolResult(1)).toMatchObject({ tool_use_id: 's1', is_error: true });
    expect(resultText(toolResult(1))).toBe('Output does not match required schema: /n: must be number');
    expect(server.requests).toHaveLength(2); // no model call after the valid answer
    expect(resultOf(messages)).toMatchObject({ subtype: 'success', is_error: false, structured_output: { n: 3 }, result: '{"n":3}', terminal_reason: 'completed' });
    const results = messages.filter((m) => m.type === 'user').map((m) => (m as { tool_use_result?: unknown }).tool_use_result);
    expect(results).toEqual(['Error: Output does not match required schema: /n: must be number', 'Structured output provided successfully']);
  });

  it('reminds the model once when its turn ends without a call, then ends without structured_output', async () => {
    server.enqueue(answer('Three.'), answer('Still three.'), answer('Never asked.'));
    const { messages } = await collectSdk(project, 'count', { model: 'claude-test', ...outputFormat });
    const reminder = '[structured-output-enforce] You MUST call the StructuredOutput tool to complete this request. Call this tool now.';
    expect(lastUserText(1)).toContain(reminder);
    expect(server.requests).toHaveLength(2);
    expect(messages.find((m) => m.type === 'user')).toMatchObject({ isSynthetic: true, message: { content: [{ type: 'text', text: reminder }] } });
    const result = resultOf(messages);
    expect(result).toMatchObject({ subtype: 'success', result: 'Still three.' });
    expect(result).not.toHaveProperty('structured_output');
  });

  it.each([
    ['5 (the default)', {}, 5],
    ['MAX_STRUCTURED_OUTPUT_RETRIES=2', { MAX_STRUCTURED_OUTPUT_RETRIES: '2' }, 2],
  ])('gives up after %s invalid calls: error_max_structured_output_retries, no model call after the last', async (_name, env, calls) => {
    server.enqueue(...[1, 2, 3, 4, 5, 6].map((i) => call(`s${i}`, { m: i })));
    const { messages, thrown } = await collectSdk(project, 'count', { model: 'claude-test', ...outputFormat, env: { ...project.env, ...env } });
    expect(server.requests).toHaveLength(calls);
    expect(resultOf(messages)).toMatchObject({ subtype: 'error_max_structured_output_retries', is_error: true, errors: [`Failed to provide valid structured output after ${calls} attempts`] });
    expect(thrown).toContain(`Failed to provide valid structured output after ${calls} attempts`);
  });
});

describe('--json-schema on the command line', () => {
  it('-p --output-format json: the result holds structured_output; text output prints the JSON', async () => {
    server.enqueue(call('s1', { n: 7 }), call('s2', { n: 8 }));
    const schema = JSON.stringify(NUMBER_SCHEMA);
    const json = await runCli(['-p', '--output-format', 'json', '--json-schema', schema, '--dangerously-skip-permissions', 'count'], { cwd: project.dir, env: project.env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ subtype: 'success', structured_output: { n: 7 }, result: '{"n":7}' });
    const text = await runCli(['-p', '--json-schema', schema, 'count'], { cwd: project.dir, env: project.env });
    expect({ code: text.code, stdout: text.stdout }).toEqual({ code: 0, stdout: '{"n":8}\n' });
  });

  it.each([
    ['not JSON', '{type: object}', 'takes a JSON Schema as JSON text'],
    ['not an object', '[1]', 'takes a JSON Schema object'],
    ['not a schema', '{"type":"nonsense"}', 'is not a valid JSON Schema: data/type must be equal to one of the allowed values'],
  ])('refuses a schema that is %s with one line (exit 2), before any model call', async (_name, schema, line) => {
    const run = await runCli(['-p', '--json-schema', schema, 'count'], { cwd: project.dir, env: project.env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`agentloop: --json-schema ${line}`);
    expect(server.requests).toEqual([]);
  });
});
