/**
 * No stack trace at exit (issue 24, item 9): a run whose command a rule denies ends while the bash tool's first batch
 * of FIFOs may still be in the making (prepare starts it during the first model call); the exit handler that removes
 * the batch's folder then met a FIFO made after it listed the folder (`ENOTEMPTY ... rmdir agentloop-pipe-...`), in
 * about one run in five. Run 50 times, the CLI as a process against the local Messages API server: every run exits 0
 * with nothing on stderr.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cliEnv, runCli } from '../support/cli.js';
import type { Step } from '../support/messagesServer.js';
import { cliProjectFor } from '../support/project.js';

const RUNS = 50;
const AT_ONCE = 4;

const project = cliProjectFor('exit');

/** Each run's first request gets the command, its second (with the denial as the tool result) the answer. */
const denied: Step = (body) => {
  const last = body.messages.at(-1);
  const answered = Array.isArray(last?.content) && last.content.some((block) => block.type === 'tool_result');
  return answered
    ? { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' }
    : { content: [{ type: 'tool_use', id: 'toolu_rm', name: 'bash', input: { command: 'rm -rf build' } }], stop_reason: 'tool_use' };
};

it(`a run whose command is denied by a rule ends without a trace on stderr, ${RUNS} times`, { timeout: 300_000 }, async () => {
  const { server, dir } = project;
  server.enqueue(...Array.from({ length: RUNS * 2 }, () => denied));
  const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-ant-test-exit', ANTHROPIC_BASE_URL: server.url, MODEL_ID: 'claude-test', AGENTLOOP_HOME: join(dir, '.home') });
  const args = ['-p', 'clean up', '--output-format', 'json', '--disallowedTools', 'Bash(rm:*)', '--dangerously-skip-permissions'];
  const failures: string[] = [];
  for (let started = 0; started < RUNS; started += AT_ONCE) {
    const runs = await Promise.all(Array.from({ length: Math.min(AT_ONCE, RUNS - started) }, () => runCli(args, { cwd: dir, env })));
    for (const run of runs) {
      expect(JSON.parse(run.stdout)).toMatchObject({ result: 'done', permission_denials: [{ tool_name: 'Bash' }] });
      if (run.code !== 0 || run.stderr !== '') failures.push(`exit ${run.code}: ${run.stderr}`);
    }
  }
  expect(failures).toEqual([]);
});
