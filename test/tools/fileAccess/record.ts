/**
 * Records what Claude Code 2.1.197's file tools answer to the calls of cases.ts, into claudeCode.json: each call's
 * tool_result (content, is_error) and the `tool_use_result` object stream-json prints beside it, and the five tools'
 * definitions as sent to the model. Claude Code runs offline against the local Messages API server, which answers each
 * request with the case's next call. To re-record (bench/peers installs Claude Code):
 *
 *   npx tsx test/tools/fileAccess/record.ts      (or CLAUDE_CODE=/path/to/claude)
 */
import { writeFileSync } from 'node:fs';
import { CLAUDE_CODE_BIN, claudeCodeEnv, claudeCodeScratch, runToEnd } from '../../support/claudeCode.js';
import { startMessagesServer } from '../../support/messagesServer.js';
import { CASES, callsInTurn, setUpCase, withCwd, type FileCase } from './cases.js';

export const FIXTURE = new URL('./claudeCode.json', import.meta.url);

export interface RecordedResult {
  content: unknown;
  isError: boolean;
  data: unknown;
}

async function recordCase(fileCase: FileCase, claude: string): Promise<{ results: RecordedResult[]; tools: unknown[] }> {
  const { cwd, home, remove } = claudeCodeScratch('cc-files');
  setUpCase(cwd, fileCase);
  const server = await startMessagesServer();
  const step = callsInTurn(fileCase, cwd);
  for (let i = 0; i < fileCase.calls.length + 5; i++) server.enqueue(step);
  const args = ['-p', 'go', '--output-format', 'stream-json', '--verbose', '--tools', 'Bash,Read,Write,Edit,Glob,Grep', '--dangerously-skip-permissions'];
  const { stdout, stderr } = await runToEnd(claude, args, { cwd, env: claudeCodeEnv(home, server.url, { IS_SANDBOX: '1' }) });
  process.stderr.write(stderr);
  const tools = (server.requests.find((r) => r.body?.tools?.length)?.body?.tools ?? []) as { name: string }[];
  await server.close();
  remove();
  const results: RecordedResult[] = [];
  for (const result of toolResultsOf(stdout)) results.push(withCwd(result, cwd, '$CWD'));
  return { results, tools: tools.filter((t) => ['Read', 'Write', 'Edit', 'Glob', 'Grep'].includes(t.name)) };
}

/** The tool results of a stream-json output: each `user` line's tool_result and its `tool_use_result`. */
export function toolResultsOf(stdout: string): RecordedResult[] {
  const out: RecordedResult[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const event = JSON.parse(line) as { type: string; message?: { content?: { type: string; content?: unknown; is_error?: boolean }[] }; tool_use_result?: unknown };
    const block = event.type === 'user' ? event.message?.content?.find((b) => b.type === 'tool_result') : undefined;
    if (block) out.push({ content: block.content, isError: block.is_error === true, data: event.tool_use_result });
  }
  return out;
}

async function main(): Promise<void> {
  const cases: Record<string, RecordedResult[]> = {};
  let tools: unknown[] = [];
  for (const fileCase of CASES) {
    const recorded = await recordCase(fileCase, CLAUDE_CODE_BIN);
    cases[fileCase.name] = recorded.results;
    if (recorded.tools.length) tools = recorded.tools;
    process.stdout.write(`${fileCase.name}: ${recorded.results.length} of ${fileCase.calls.length} calls\n`);
  }
  const fixture = { recordedWith: { claudeCode: '2.1.197' }, command: 'npx tsx test/tools/fileAccess/record.ts', tools, cases };
  writeFileSync(FIXTURE, `${JSON.stringify(fixture, null, 1)}\n`);
}

if (process.argv[1]?.endsWith('record.ts')) await main();
