/**
 * A transcript removed, replaced or cut shorter while its run goes on (issue 23, item 7): one warning
 * on stderr, and the run's records end up in a session that `--continue` finds (a new one, forked
 * from it, with the history so far); the file at the old path is left as the user left it. The CLI
 * as a real process, the loss made at several moments of a run: while the first model call is
 * held, while a tool runs, while the second model call is held. And in one process
 * (test/support/lostAfterLastWrite.ts), after the run's last write. Each as this user and again as nobody when this
 * one is root (test/support/users.ts: the project or home is then nobody's, the program runs through setpriv).
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync, renameSync, rmSync, statSync, truncateSync, writeFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { historyProblems } from '../../src/history/validate.js';
import { newestSessionFor, readTranscript } from '../../src/transcript/store.js';
import { bashUse, lastToolResults, resultText } from '../support/agentServer.js';
import { RUN_EVERYTHING, startCli } from '../support/cli.js';
import type { RecordedRequest, RequestBody, Step } from '../support/messagesServer.js';
import type { CliProject } from '../support/project.js';
import { runAs, testUsers, type TestUser } from '../support/users.js';
import { markedCliProjectPerTest, transcripts, waitFor } from '../support/sessions.js';

let project: CliProject;
let marker: string;
markedCliProjectPerTest('lost', (p, m) => {
  project = p;
  marker = m;
});

type Loss = 'removed' | 'replaced' | 'truncated';
type Moment = 'first model call' | 'tool' | 'second model call';

/** Does the loss to the transcript at `path`; returns what the file at the path must still hold afterwards, if anything. */
function lose(path: string, loss: Loss): string | undefined {
  if (loss === 'removed') {
    rmSync(path);
    return undefined;
  }
  if (loss === 'truncated') {
    truncateSync(path, Math.floor(statSync(path).size / 2));
    return readFileSync(path, 'utf8');
  }
  const other = `${path}.new`;
  writeFileSync(other, 'someone else\'s file\n');
  renameSync(other, path);
  return 'someone else\'s file\n';
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const WARNING = /agentloop: the transcript of session (\S+) was (removed|replaced|truncated) during the run \((\S+)\); the run goes on in session (\S+) \((\S+)\), forked from it\n/g;

const MATRIX: Array<[Loss, Moment]> = (['removed', 'replaced', 'truncated'] as const).flatMap((loss) =>
  (['first model call', 'tool', 'second model call'] as const).map((moment): [Loss, Moment] => [loss, moment]),
);

/** The CLI as `user` in the project (made theirs first); `-p` runs get an empty stdin. */
function cliAs(user: TestUser, args: string[]) {
  if (user.owner !== undefined) execFileSync('chown', ['-R', user.owner, project.dir]);
  // The commands of these runs write (touch, >>): -p runs them only when told (docs/cli.md#permissions).
  return startCli([...args, RUN_EVERYTHING], { cwd: project.dir, env: project.env, prefix: user.prefix });
}

describe.each(testUsers())('as $name', (user) => {
  const test = user.skip === undefined ? it : it.skip;

  describe('a transcript lost during a run', () => {
    test.each(MATRIX)('%s while the %s: one warning, the run goes on in a fork that --continue finds whole', async (loss, moment) => {
      const held = deferred();
      const arrived = deferred();
      const hold = (at: Moment, step: Step): Step => async (body: RequestBody, index: number, request: RecordedRequest) => {
        if (moment === at) {
          arrived.resolve();
          await held.promise;
        }
        return typeof step === 'function' ? step(body, index, request) : step;
      };
      const tool = `touch started; while [ ! -e go ]; do sleep 0.05; done; echo ran # ${marker}`;
      project.server.enqueue(
        hold('first model call', { content: [{ type: 'text', text: 'Working.' }, bashUse('toolu_w', tool)], stop_reason: 'tool_use' }),
        hold('second model call', (body) => ({ content: [{ type: 'text', text: `saw ${resultText(lastToolResults(body)[0] as never)}` }], stop_reason: 'end_turn' })),
      );
      if (moment !== 'tool') writeFileSync(join(project.dir, 'go'), '');
      const run = cliAs(user, ['-p', 'q-first', '--output-format', 'json']);
      if (moment === 'tool') await waitFor('the tool to start', () => existsSync(join(project.dir, 'started')), 60_000);
      else await arrived.promise;
      const [name] = [...transcripts(project.home).keys()];
      const oldPath = join(project.home, 'sessions', name as string);
      const left = lose(oldPath, loss);
      if (moment === 'tool') writeFileSync(join(project.dir, 'go'), '');
      else held.resolve();
      const done = await run.done;

      expect(done.code, done.stderr).toBe(0);
      const warnings = [...done.stderr.matchAll(WARNING)];
      expect(warnings.map((w) => [w[1], w[2], w[3]])).toEqual([[(name as string).replace('.jsonl', ''), loss, oldPath]]);
      const [, oldId, , , newId, newPath] = warnings[0] as RegExpMatchArray;
      expect(JSON.parse(done.stdout)).toMatchObject({ session_id: newId, result: 'saw ran' });
      if (left === undefined) expect(existsSync(oldPath)).toBe(false);
      else expect(readFileSync(oldPath, 'utf8')).toBe(left);

      const fork = readTranscript(newPath as string);
      expect(statSync(newPath as string).uid, 'the fork is the user\'s').toBe(user.owner === undefined ? process.getuid?.() : 65534);
      expect(fork.problems).toEqual([]);
      expect(fork.header).toMatchObject({ id: newId, forkedFrom: oldId, cwd: project.dir });
      expect(newestSessionFor(project.home, project.dir)?.id).toBe(newId);

      project.server.enqueue((body) => ({ content: [{ type: 'text', text: `next saw ${body.messages.length}` }], stop_reason: 'end_turn' }));
      const next = await cliAs(user, ['--continue', '-p', 'q-next', '--output-format', 'json']).done;
      expect(next.code, next.stderr).toBe(0);
      expect(JSON.parse(next.stdout)).toMatchObject({ session_id: newId, result: 'next saw 5' });
      const messages = project.server.requests.at(-1)?.body?.messages ?? [];
      expect(messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'q-first' }] });
      expect(messages[3]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'saw ran' }] });
      for (const request of project.server.requests) expect(historyProblems(request.body?.messages ?? [])).toEqual([]);
      expect(project.server.violations).toEqual([]);
    }, 120_000);
  });

  describe('a transcript removed while a tool runs, then the run killed with SIGKILL', () => {
    test('is forked while the tool runs (one warning, before any write), so --continue finds the fork and never runs the tool again', async () => {
      const tool = `echo once >> ran.txt; touch started; while [ ! -e go ]; do sleep 0.05; done # ${marker}`;
      project.server.enqueue({ content: [{ type: 'text', text: 'Working.' }, bashUse('toolu_k', tool)], stop_reason: 'tool_use' });
      const run = cliAs(user, ['-p', 'q-first', '--output-format', 'json']);
      await waitFor('the tool to start', () => existsSync(join(project.dir, 'started')), 60_000);
      const [name] = [...transcripts(project.home).keys()];
      rmSync(join(project.home, 'sessions', name as string));
      await waitFor('the warning', () => WARNING.test(run.output().stderr), 10_000);
      WARNING.lastIndex = 0;
      const [, oldId, , , newId] = WARNING.exec(run.output().stderr) as RegExpExecArray;
      WARNING.lastIndex = 0;
      run.child.kill('SIGKILL');
      await run.done;
      expect(oldId).toBe((name as string).replace('.jsonl', ''));

      project.server.enqueue((body) => ({ content: [{ type: 'text', text: `resumed with ${resultText(lastToolResults(body)[0] as never)}` }], stop_reason: 'end_turn' }));
      const next = await cliAs(user, ['--continue', '--output-format', 'json']).done;
      expect(next.code, next.stderr).toBe(0);
      expect(next.stderr).toContain('as interrupted (not run again)');
      expect(JSON.parse(next.stdout)).toMatchObject({ session_id: newId, result: expect.stringMatching(/^resumed with interrupted/) });
      expect(readFileSync(join(project.dir, 'ran.txt'), 'utf8')).toBe('once\n');
      for (const request of project.server.requests) expect(historyProblems(request.body?.messages ?? [])).toEqual([]);
    }, 120_000);
  });
});

/** test/support/lostAfterLastWrite.ts as `user`, through tsx, on a home that is theirs; what it printed. */
async function afterLastWrite(user: TestUser, home: string) {
  if (user.owner !== undefined) execFileSync('chown', ['-R', user.owner, home]);
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const script = fileURLToPath(new URL('../support/lostAfterLastWrite.ts', import.meta.url));
  const run = await runAs(user, process.execPath, ['--import', tsx, script, home], { cwd: home, env: { PATH: process.env.PATH, HOME: home } });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { notices: string[]; forkedFrom?: string; roles: string[]; last: unknown; owner: number; id: string; newest?: string };
}

describe.each(testUsers())('as $name, in one process', (user) => {
  const test = user.skip === undefined ? it : it.skip;
  test('a transcript removed after the last write of a run is forked when the session closes, with the whole history and the run’s end', async () => {
    const home = mkdtempSync(join(tmpdir(), 'agentloop-lost-'));
    try {
      const seen = await afterLastWrite(user, home);
      expect(seen.notices).toHaveLength(1);
      expect(seen.notices[0]).toMatch(/was removed during the run/);
      expect(seen.forkedFrom).toBeDefined();
      expect(seen.roles).toEqual(['user', 'assistant']);
      expect(seen.last).toMatchObject({ type: 'result', exitReason: 'completed' });
      expect(seen.newest).toBe(seen.id);
      expect(seen.owner, "the fork is the user's").toBe(user.owner === undefined ? process.getuid?.() : 65534);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 120_000);
});
