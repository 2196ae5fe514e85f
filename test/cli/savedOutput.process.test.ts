/**
 * The full output of a long command lives with its session (issue 11, item 5): the CLI as a real
 * process against the local Messages API server; the path the model is given is in the session's
 * folder under $AGENTLOOP_HOME, outlives the run, and is readable by the next command, sandboxed
 * or not (a sandboxed command has a /tmp of its own, where the output used to go). As root and as nobody (the
 * project theirs): the folders and the file are the user's and theirs alone (0700, 0700, 0600).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cliProjectPerTest } from '../support/project.js';
import { describe, expect, it } from 'vitest';
import { bashUse, lastToolResults, resultText } from '../support/agentServer.js';
import { runCliAs, testUsers } from '../support/users.js';
import type { MessagesServer, RequestBody } from '../support/messagesServer.js';

let server: MessagesServer;
let dir: string;
let home: string;
let env: NodeJS.ProcessEnv;

cliProjectPerTest('saved', (project) => ({ server, dir, home, env } = project));

const FULL = Array.from({ length: 100_000 }, (_, i) => `${i + 1}\n`).join('');
const savedPath = (body: RequestBody) => /is in (\S+output\.txt)\]/.exec(resultText(lastToolResults(body)[0] as never))?.[1];

describe.each(testUsers())('the full output of a long command, as $name', (user) => {
  const runCli = (args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) => {
    if (user.owner !== undefined) execFileSync('chown', ['-R', user.owner, dir]);
    return runCliAs(user, args, options);
  };
  for (const sandbox of [false, true]) {
    it.skipIf(user.skip !== undefined)(`is kept in the session's folder, the user's alone, and read by the next command${sandbox ? ' (--sandbox)' : ''}`, async () => {
      let path: string | undefined;
      server.enqueue(
        { content: [bashUse('toolu_long', 'seq 1 100000')], stop_reason: 'tool_use' },
        (body) => {
          path = savedPath(body);
          return { content: [bashUse('toolu_read', `wc -c < ${path}`)], stop_reason: 'tool_use' };
        },
        (body) => ({ content: [{ type: 'text', text: `bytes: ${resultText(lastToolResults(body)[0] as never)}` }], stop_reason: 'end_turn' }),
      );
      // seq is not among the read-only commands -p runs unasked (docs/cli.md#permissions): allowed here.
      const run = await runCli(['-p', 'count', '--output-format', 'json', ...(sandbox ? ['--sandbox'] : []), '--allowedTools', 'Bash(seq:*)'], { cwd: dir, env });
      expect(run.code, run.stderr).toBe(0);
      const { session_id: id, result } = JSON.parse(run.stdout) as { session_id: string; result: string };
      expect(path).toMatch(new RegExp(`^${join(home, 'sessions', id)}/agentloop-bash-\\w+/output\\.txt$`));
      expect(result).toBe(`bytes: ${Buffer.byteLength(FULL)}`);
      expect(readFileSync(path as string, 'utf8')).toBe(FULL);
      expect(readdirSync(join(home, 'sessions')).sort()).toEqual([id, `${id}.jsonl`]);
      const uid = user.owner === undefined ? process.getuid?.() : 65534;
      const saved = [join(home, 'sessions', id), dirname(path as string), path as string];
      expect(saved.map((p) => [p, statSync(p).uid, statSync(p).mode & 0o777])).toEqual(saved.map((p, i) => [p, uid, i < 2 ? 0o700 : 0o600]));
      expect(server.violations).toEqual([]);

      // The next run of the session saves into the same folder; the first file is still there.
      server.enqueue({ content: [bashUse('toolu_again', 'seq 1 100000')], stop_reason: 'tool_use' }, (body) => {
        path = savedPath(body);
        return { content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' };
      });
      expect((await runCli(['--continue', '-p', 'again', ...(sandbox ? ['--sandbox'] : []), '--allowedTools', 'Bash(seq:*)'], { cwd: dir, env })).code).toBe(0);
      expect(path?.startsWith(join(home, 'sessions', id))).toBe(true);
      expect(readdirSync(join(home, 'sessions', id))).toHaveLength(2);
      expect(existsSync(path as string)).toBe(true);
    });
  }
});
