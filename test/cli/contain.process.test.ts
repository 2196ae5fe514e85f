/**
 * The CLI as a real process against the local Messages API server: kill -9 while its bash tool
 * runs leaves nothing behind (in both modes), and from inside a command the agent's API key is
 * nowhere to be found (environment, /proc/PID/environ|cmdline, the agent's open files). As this user, and again as
 * nobody when this one is root (test/support/users.ts: the project is then nobody's and the CLI runs through setpriv).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliProjectPerTest } from '../support/project.js';
import { describe, expect, it as base } from 'vitest';
import { lastToolResults, resultText } from '../support/agentServer.js';
import { RUN_EVERYTHING, startCli } from '../support/cli.js';
import type { MessagesServer } from '../support/messagesServer.js';
import { killMarked, liveWithMarker } from '../support/processes.js';
import { testUsers, type TestUser } from '../support/users.js';
import { transcripts, waitFor } from '../support/sessions.js';

const API_KEY = `sk-ant-api03-${randomUUID().replaceAll('-', '')}${randomUUID().replaceAll('-', '')}-AA`;

let server: MessagesServer;
let dir: string;
let env: NodeJS.ProcessEnv;
let marker: string;

cliProjectPerTest(
  'contain',
  (project) => {
    ({ server, dir, env } = project);
    marker = `m${randomUUID().slice(0, 8)}`;
  },
  { apiKey: API_KEY, beforeClose: () => killMarked(marker) },
);

/** The CLI as `user`, in the project (made theirs first), with `env`; `-p` runs get an empty stdin. */
function cliAs(user: TestUser, args: string[], runEnv = env) {
  if (user.owner !== undefined) execFileSync('chown', ['-R', user.owner, dir]);
  return startCli(args, { cwd: dir, env: runEnv, prefix: user.prefix });
}

describe.each(testUsers())('as $name', (user) => {
  const it = user.skip === undefined ? base : base.skip;

  describe.each([['without --sandbox', []], ['with --sandbox', ['--sandbox']]])('kill -9 of the agent %s', (_mode, flags) => {
    it('kills every process of the running tool, and its side effects never happen', async () => {
      // Background children, a setsid escapee and a double fork, each writing a file a second later.
      const command =
        `(sleep 1.5; touch late-child) & setsid sh -c 'sleep 1.5; touch late-setsid' & ` +
        `( (sleep 1.5; touch late-fork) & ) ; touch started; sleep 30 # ${marker}`;
      server.enqueue({
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command } }],
        stop_reason: 'tool_use',
      });
      const run = cliAs(user, ['-p', 'go', RUN_EVERYTHING, ...flags]); // the command writes: allowed, as -p denies it by default
      await waitFor('the command to start', () => existsSync(join(dir, 'started')), 20_000);
      expect(liveWithMarker(marker).length).toBeGreaterThan(0);
      run.child.kill('SIGKILL');
      expect((await run.done).signal).toBe('SIGKILL');

      await waitFor('the tool processes to go', () => liveWithMarker(marker).length === 0, 3000).catch(() => undefined);
      expect(liveWithMarker(marker).map((p) => p.cmdline)).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 2000)); // past the 1.5 s of the side effects
      for (const file of ['late-child', 'late-setsid', 'late-fork']) expect(existsSync(join(dir, file)), file).toBe(false);
    });
  });

  describe.each([['without --sandbox', []], ['with --sandbox', ['--sandbox']]])('the API key, from inside a command %s', (_mode, flags) => {
    it('is not in the environment, /proc/*/environ, /proc/*/cmdline nor any open file of a process', async () => {
      writeFileSync(join(dir, 'notes.txt'), 'n');
      // The pattern matches the key but not itself (the brackets), so a command never finds its own text.
      const pattern = `'sk-ant-api0[3]-[A-Za-z0-9_-]\\{20,\\}'`;
      const commands = [
        `env | grep -ao ${pattern} | rev; echo env-done`,
        `grep -aho ${pattern} /proc/[0-9]*/environ 2>/dev/null | rev; echo environ-done`,
        `grep -aho ${pattern} /proc/$PPID/cmdline /proc/[0-9]*/cmdline 2>/dev/null | rev; echo cmdline-done`,
        `for f in /proc/[0-9]*/fd/*; do [ -f "$f" ] && grep -aho ${pattern} "$f" 2>/dev/null; done | rev; echo fd-done`,
        `grep -aho ${pattern} /proc/[0-9]*/mem 2>/dev/null | rev; echo mem-done`,
      ];
      server.enqueue(
        { content: commands.map((c, i) => ({ type: 'tool_use' as const, id: `toolu_${i}`, name: 'bash', input: { command: c } })), stop_reason: 'tool_use' },
        { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' },
      );
      const result = await cliAs(user, ['-p', 'look for the key', '--output-format', 'json', ...flags]).done;
      expect(result.code, result.stderr).toBe(0);
      const results = lastToolResults(server.requests[1]?.body as never).map(resultText);
      expect(results).toHaveLength(commands.length);
      const reversed = [...API_KEY].reverse().join('');
      for (const [i, text] of results.entries()) {
        expect(text).toMatch(/-done/); // the command ran to its end
        expect(text, commands[i]).not.toContain(reversed);
        expect(text, commands[i]).not.toContain(API_KEY);
      }
    });
  });

  describe('credentials of the environment and of .env', () => {
    it('reach neither a command, nor the model, nor the transcript', async () => {
      const secrets = {
        DATABASE_URL: `postgres://u:${randomUUID()}@h/db`,
        PGPASSWORD: randomUUID(),
        DB_PASS: randomUUID(),
        GH_PAT: `ghp_${randomUUID().replaceAll('-', '')}abcd`,
        REDIS_URL: `redis://:${randomUUID()}@cache:6379`,
      };
      const dotEnvKey = `sk-ant-api03-${randomUUID().replaceAll('-', '')}-dotenv`;
      writeFileSync(join(dir, '.env'), `ANTHROPIC_API_KEY=${dotEnvKey}\n`);
      const withDotEnv: NodeJS.ProcessEnv = { ...env, ...secrets };
      delete withDotEnv.ANTHROPIC_API_KEY; // the key comes from .env only
      server.enqueue(
        { content: [{ type: 'tool_use', id: 'toolu_env', name: 'bash', input: { command: 'env; cat .env' } }], stop_reason: 'tool_use' },
        { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' },
      );
      const result = await cliAs(user, ['-p', 'show me the environment', '--output-format', 'json', RUN_EVERYTHING], withDotEnv).done;
      expect(result.code, result.stderr).toBe(0);
      const seen = resultText(lastToolResults(server.requests[1]?.body as never)[0] as never);
      expect(seen).toContain('[redacted ANTHROPIC_API_KEY]'); // cat .env ran, its key cut out
      const [name] = transcripts(join(dir, '.home')).keys();
      expect(statSync(join(dir, '.home', 'sessions', name as string)).uid, 'the run is the user\'s').toBe(user.owner === undefined ? process.getuid?.() : 65534);
      const transcript = [...transcripts(join(dir, '.home')).values()].join('\n');
      expect(transcript).toContain('toolu_env');
      for (const value of [...Object.values(secrets), dotEnvKey]) {
        expect(seen).not.toContain(value);
        expect(transcript).not.toContain(value);
        expect(result.stdout).not.toContain(value);
      }
    });
  });
});
