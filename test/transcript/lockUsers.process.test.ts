/**
 * One writer per session across users: root going on with a user's session (`sudo -E agentloop
 * --continue`), whose folder the user can write, and a user meeting a lock file of another's. The
 * CLI as processes, the user as nobody (setpriv). As root only: the cases need two users.
 * - root never writes through a symbolic or hard link the folder's owner put at a session's path
 *   (the lock file or the transcript: /etc/shadow would be truncated and written, as root);
 * - a lock file root made in the user's folder is the user's, so root's `kill -9` blocks the user
 *   for no moment; so is the saved output of root's long command (the session's folder, the command's folder, its file);
 * - a lock file the user cannot open is held (the session is busy: refused, or waited for) or not
 *   (one line saying to remove it), never a stack trace.
 */
import { chownSync, closeSync, copyFileSync, existsSync, linkSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { INTERRUPTED_TOOL_RESULT } from '../../src/transcript/resume.js';
import { bashUse, lastToolResults, resultText } from '../support/agentServer.js';
import { RUN_EVERYTHING, startCli } from '../support/cli.js';
import type { CliProject } from '../support/project.js';
import { testUsers } from '../support/users.js';
import { markedCliProjectPerTest, waitFor } from '../support/sessions.js';

let project: CliProject;
let marker: string;
markedCliProjectPerTest('lockusers', (p, m) => {
  project = p;
  marker = m;
});

const nobody = testUsers()[1];
const skip = process.getuid?.() !== 0 ? 'needs root (two users)' : nobody?.skip;
const NOBODY = 65534;
const require = createRequire(import.meta.url);

/** A finished session of this directory, the project (and its home) then nobody's. */
async function usersSession(): Promise<{ id: string; path: string; lock: string }> {
  const model = scriptedModel([reply.text('ready')]);
  const run = await runAgent('q-start', { model: 'claude-test', modelCall: model.call, tools: [], session: { home: project.home }, cwd: project.dir });
  execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, project.dir]);
  const path = join(project.home, 'sessions', `${run.sessionId}.jsonl`);
  return { id: run.sessionId, path, lock: path.replace(/\.jsonl$/, '.lock') };
}

// The commands of these runs write (touch, rm, >>): -p runs them only when told (docs/cli.md#permissions).
const asRoot = (args: string[]) => startCli([...args, RUN_EVERYTHING], { cwd: project.dir, env: project.env });
const asNobody = (args: string[]) => startCli([...args, RUN_EVERYTHING], { cwd: project.dir, env: project.env, prefix: nobody?.prefix ?? [] });

/** A file of root's that nobody may touch (0600, in a folder of root's). */
let victims: string;
beforeEach(() => {
  victims = mkdtempSync(join(tmpdir(), 'agentloop-victim-'));
});
afterEach(() => rmSync(victims, { recursive: true, force: true }));

describe.skipIf(skip !== undefined)('root in a folder its user can write', () => {
  it.each(['symbolic link', 'hard link'] as const)('does not write through a %s at the lock file: one line, exit 2, nothing written', async (kind) => {
    const { id, path, lock } = await usersSession();
    const victim = join(victims, 'shadow');
    writeFileSync(victim, 'root:secret\n', { mode: 0o600 });
    if (kind === 'symbolic link') symlinkSync(victim, lock);
    else linkSync(victim, lock);
    const before = readFileSync(path, 'utf8');
    const run = await asRoot(['--resume', id, '-p', 'q-root']).done;
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(kind === 'symbolic link' ? /^agentloop: \S+\.lock is a symbolic link: agentloop does not write through it\n$/ : /^agentloop: \S+\.lock has 2 names \(hard links\): agentloop does not write to it\n$/);
    expect(readFileSync(victim, 'utf8')).toBe('root:secret\n');
    expect(statSync(victim).uid).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe(before);
    expect(project.server.requests).toEqual([]);
  });

  it('does not append through a transcript swapped for a link to a transcript of root’s', async () => {
    const { id, path } = await usersSession();
    const victim = join(victims, 'root.jsonl');
    copyFileSync(path, victim);
    chownSync(victim, 0, 0);
    unlinkSync(path);
    symlinkSync(victim, path);
    const run = await asRoot(['--resume', id, '-p', 'q-root']).done;
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/^agentloop: \S+\.jsonl is a symbolic link: agentloop does not write through it\n$/);
    expect(readFileSync(victim, 'utf8')).not.toContain('q-root');
    expect(project.server.requests).toEqual([]);
  });

  it('leaves the user a lock file of theirs when killed with SIGKILL: their --continue goes on at once', async () => {
    const { path, lock } = await usersSession();
    const tool = `touch started; while [ ! -e go ]; do sleep 0.05; done # ${marker}`;
    project.server.enqueue({ content: [bashUse('toolu_root', tool)], stop_reason: 'tool_use' });
    const root = asRoot(['--continue', '-p', 'q-root', '--output-format', 'json']);
    await waitFor('the tool to start', () => existsSync(join(project.dir, 'started')), 60_000);
    expect(statSync(lock).uid).toBe(NOBODY);
    expect(statSync(path).uid).toBe(NOBODY);
    root.child.kill('SIGKILL');
    await root.done;
    project.server.enqueue((body) => ({ content: [{ type: 'text', text: `saw ${body.messages.length}` }], stop_reason: 'end_turn' }));
    const user = await asNobody(['--continue', '-p', 'q-user', '--output-format', 'json']).done;
    expect(user.code, user.stderr).toBe(0);
    expect(JSON.parse(user.stdout)).toMatchObject({ is_error: false });
    expect(readFileSync(path, 'utf8')).toContain(INTERRUPTED_TOOL_RESULT);
  });
});

describe.skipIf(skip !== undefined)("root's saved output in its user's session", () => {
  it("is the user's: the session's folder, the command's folder and its file; the user's next command reads and removes them", async () => {
    const { id } = await usersSession();
    let saved = '';
    project.server.enqueue({ content: [bashUse('toolu_long', 'seq 1 100000')], stop_reason: 'tool_use' }, (body) => {
      saved = /is in (\S+output\.txt)\]/.exec(resultText(lastToolResults(body)[0] as never))?.[1] ?? '';
      return { content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' };
    });
    const root = await asRoot(['--continue', '-p', 'q-root']).done;
    expect(root.code, root.stderr).toBe(0);
    const folder = join(project.home, 'sessions', id);
    expect(dirname(dirname(saved))).toBe(folder);
    expect([folder, dirname(saved), saved].map((path) => [path, statSync(path).uid])).toEqual([folder, dirname(saved), saved].map((path) => [path, NOBODY]));

    const read = `wc -c < ${saved} && rm -r ${dirname(saved)} && echo removed`;
    project.server.enqueue({ content: [bashUse('toolu_user', read)], stop_reason: 'tool_use' }, (body) => ({
      content: [{ type: 'text', text: resultText(lastToolResults(body)[0] as never) }],
      stop_reason: 'end_turn',
    }));
    const user = await asNobody(['--continue', '-p', 'q-user', '--output-format', 'json']).done;
    expect(user.code, user.stderr).toBe(0);
    expect(JSON.parse(user.stdout).result).toBe('588895\nremoved');
    expect(existsSync(dirname(saved))).toBe(false);
  });
});

describe.skipIf(skip !== undefined)('a user meeting a lock file another user made', () => {
  it('is refused while a process holds it, waits for it when asked, and is told to remove it when none does', async () => {
    const { id, path, lock } = await usersSession();
    writeFileSync(lock, '', { mode: 0o600 }); // root's: nobody cannot open it
    const fd = openSync(lock, 'r+');
    expect((require('fs-native-extensions') as { tryLock(fd: number): boolean }).tryLock(fd)).toBe(true);
    const before = readFileSync(path, 'utf8');
    try {
      const busy = await asNobody(['--resume', id, '-p', 'q-user']).done;
      expect(busy.code, busy.stderr).toBe(2);
      expect(busy.stderr).toMatch(/^agentloop: session \S+ is in use by another process: add --wait-for-session to wait until it ends\n$/);
      project.server.enqueue({ content: [{ type: 'text', text: 'after the wait' }], stop_reason: 'end_turn' });
      const waiting = asNobody(['--resume', id, '-p', 'q-waits', '--wait-for-session', '--output-format', 'json']);
      await waitFor('the waiting line', () => /waiting until it ends/.test(waiting.output().stderr), 60_000);
      expect(readFileSync(path, 'utf8')).toBe(before);
      unlinkSync(lock); // as a holder releases it: removed while still held
      const waited = await waiting.done;
      expect(waited.code, waited.stderr).toBe(0);
      expect(JSON.parse(waited.stdout)).toMatchObject({ result: 'after the wait' });
    } finally {
      if (existsSync(lock)) unlinkSync(lock);
      closeSync(fd);
    }
    writeFileSync(lock, '{"pid":1,"startedAt":"2026-01-01T00:00:00Z"}\n', { mode: 0o600 });
    const stale = await asNobody(['--resume', id, '-p', 'q-stale']).done;
    expect(stale.code, stale.stderr).toBe(2);
    expect(stale.stderr).toMatch(/^agentloop: \S+\.lock is the lock file of user 0's session, which no run holds: remove it to go on with the session\n$/);
  });
});
