/**
 * The sandbox keeps files that run later read-only, even inside the working directory (issue 23, item 6). With the
 * working directory at a home that is also a git repository, a sandboxed command tries, for every name of the list
 * (tools/bash/run/protect.ts), to write it or plant a file in it, to remove it, to move the folder it lies in away and
 * make a new one, to link it elsewhere; what exists stays as it was and what does not exist is not made, and no
 * placeholder is left behind (also where the working directory is not a repository: no `git init` there).
 * `--allow-write` lets the names it lists be written. Two agents in one folder: the
 * placeholder one made stays while the other's command still runs. The CLI as a process, as root and as nobody.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findExecutable } from '../../../src/tools/bash/run/programs.js';
import { IN_HOME, IN_WORKING_DIRECTORY, type ProtectedName } from '../../../src/tools/bash/run/protect.js';
import { lastToolResults, resultText, startCheckedServer } from '../../support/agentServer.js';
import { cliEnv } from '../../support/cli.js';
import { runAs, runCliAs, testUsers, type TestUser } from '../../support/users.js';

const DIST_SANDBOX = fileURLToPath(new URL('../../../dist/tools/bash/run/sandbox.js', import.meta.url));

const NAMES: readonly ProtectedName[] = [...IN_WORKING_DIRECTORY, ...IN_HOME];
/** Made before the run, each with its own text (the rest of the list does not exist). */
const EXISTING: Record<string, string> = { '.bashrc': 'the user\'s bashrc\n', '.zshrc': 'the user\'s zshrc\n', '.gitconfig': '[user]\n\tname = u\n', '.vscode/settings.json': '{}\n' };

const attack = (names: readonly ProtectedName[]) =>
  [
    ...names.map(({ name, dir }) =>
      dir
        ? `mkdir -p ${name} 2>/dev/null; echo evil > ${name}/planted 2>/dev/null && echo "planted ${name}"`
        : `mkdir -p ${dirname(name)} 2>/dev/null; echo evil >> ${name} 2>/dev/null && echo "wrote ${name}"`,
    ),
    ...names.map(({ name }) => `rm -rf ${name} 2>/dev/null; [ -e ${name} ] || echo "removed ${name}"`),
    'mv .git .git-away 2>/dev/null && echo "moved .git" && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit',
    'mv .local .local-away 2>/dev/null && echo "moved .local"',
    'rm -f .bashrc 2>/dev/null; echo evil > .bashrc 2>/dev/null; ln -s /tmp/evil .profile 2>/dev/null && echo "linked .profile"',
    'echo task > task.txt && echo attack-done',
  ].join('\n');

/** A home that is a git repository, owned by `user`: EXISTING in it, the rest of the list missing. */
function makeHome(user: TestUser): string {
  const base = mkdtempSync(join(tmpdir(), 'agentloop-later-'));
  const home = join(base, 'home');
  mkdirSync(home);
  execFileSync('git', ['init', '-q', home]);
  mkdirSync(join(home, '.local'));
  for (const [name, text] of Object.entries(EXISTING)) {
    mkdirSync(dirname(join(home, name)), { recursive: true });
    writeFileSync(join(home, name), text);
  }
  execFileSync('chmod', ['755', base]);
  if (user.owner !== undefined) execFileSync('chown', ['-R', user.owner, base]);
  return home;
}

/** What the folder holds (the names of the list and what lies in them), to compare before and after. */
function snapshot(home: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { name } of NAMES) {
    const path = join(home, name);
    if (!existsSync(path)) continue;
    try {
      out[name] = readFileSync(path, 'utf8');
    } catch {
      out[name] = `folder: ${readdirSync(path).sort().join(' ')}`;
    }
  }
  out['top level'] = readdirSync(home).sort().join(' ');
  return out;
}

async function runInSandbox(user: TestUser, home: string, commands: string[], flags: string[] = []): Promise<string[]> {
  const server = await startCheckedServer();
  try {
    server.enqueue(
      { content: commands.map((command, i) => ({ type: 'tool_use' as const, id: `toolu_${i}`, name: 'bash', input: { command } })), stop_reason: 'tool_use' },
      { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' },
    );
    const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-ant-test-later', ANTHROPIC_BASE_URL: server.url, MODEL_ID: 'claude-test', HOME: home, AGENTLOOP_HOME: join(dirname(home), 'agent') });
    const run = await runCliAs(user, ['-p', 'plant something', '--dangerously-skip-permissions', ...flags], { cwd: home, env });
    expect(run.code, run.stderr).toBe(0);
    return lastToolResults(server.requests[1]?.body as never).map(resultText);
  } finally {
    await server.close();
  }
}

describe.each(testUsers())('as $name', (user) => {
  it('keeps every file that runs later as it was, makes none, and leaves no placeholder behind', { timeout: 90_000 }, async (ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    const home = makeHome(user);
    try {
      const before = snapshot(home);
      const [seen] = await runInSandbox(user, home, [attack(NAMES)], ['--sandbox']);
      expect(seen).toMatch(/attack-done/);
      expect(seen).not.toMatch(/^(planted|wrote|removed|moved|linked) /m);
      expect(readFileSync(join(home, 'task.txt'), 'utf8')).toBe('task\n');
      expect(snapshot(home)).toEqual({ ...before, 'top level': `${before['top level']} task.txt`.split(' ').sort().join(' ') });
    } finally {
      rmSync(dirname(home), { recursive: true, force: true });
    }
  });

  it('in a folder that is not a repository yet: no `git init`, and nothing is left behind', { timeout: 90_000 }, async (ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    const base = mkdtempSync(join(tmpdir(), 'agentloop-later-'));
    const project = join(base, 'project');
    mkdirSync(project);
    execFileSync('chmod', ['755', base]);
    if (user.owner !== undefined) execFileSync('chown', ['-R', user.owner, base]);
    try {
      const plant = 'git init -q . 2>/dev/null && echo "git init"; mkdir -p .git/hooks 2>/dev/null && echo evil > .git/hooks/pre-commit 2>/dev/null && echo "planted .git/hooks"; echo task > task.txt && echo attack-done';
      const [seen] = await runInSandbox(user, project, [plant], ['--sandbox']);
      expect(seen).toMatch(/attack-done/);
      expect(seen).not.toMatch(/^(git init|planted \.git\/hooks)$/m);
      expect(readdirSync(project)).toEqual(['task.txt']);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('a long-lived program started in the sandbox (an MCP server): the files that exist stay as they were', { timeout: 60_000 }, async (ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    const home = makeHome(user);
    try {
      const before = snapshot(home);
      const existing = NAMES.filter(({ name }) => before[name] !== undefined || name.startsWith('.git/hooks') || name === '.git/config');
      const command = [...attack(existing).split('\n').slice(0, existing.length * 2), 'mv .git .git-away 2>/dev/null && echo "moved .git"', 'echo task > task.txt && echo attack-done'].join('\n');
      // The sandboxed runner's wrap, as MCP servers are started (tools/mcp/stdio.ts), in a process of the user's own.
      const script = [
        `import { sandboxRunner } from ${JSON.stringify(DIST_SANDBOX)};`,
        "import { spawnSync } from 'node:child_process';",
        `const runner = sandboxRunner({ bwrap: ${JSON.stringify(findExecutable('bwrap', process.env.PATH) ?? 'bwrap')}, backstop: {}, env: () => process.env, reveal: () => [] });`,
        "const argv = runner.wrap(['bash', '-c', process.argv[1]], process.cwd());",
        "const run = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8' });",
        'process.stdout.write(run.stdout); process.stderr.write(run.stderr);',
      ].join('\n');
      const run = await runAs(user, process.execPath, ['--input-type=module', '-e', script, command], { cwd: home, env: { PATH: process.env.PATH ?? '', HOME: home } });
      expect(run.stdout, run.stderr).toMatch(/attack-done/);
      expect(run.stdout).not.toMatch(/^(planted|wrote|removed|moved|linked) /m);
      expect(snapshot(home)).toEqual({ ...before, 'top level': `${before['top level']} task.txt`.split(' ').sort().join(' ') });
    } finally {
      rmSync(dirname(home), { recursive: true, force: true });
    }
  });

  it('the control: without --sandbox the same command writes them all', { timeout: 90_000 }, async (ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    const home = makeHome(user);
    try {
      const [seen] = await runInSandbox(user, home, [attack(NAMES)]);
      for (const { name, dir } of NAMES) expect(seen).toContain(`${dir ? 'planted' : 'wrote'} ${name}`);
    } finally {
      rmSync(dirname(home), { recursive: true, force: true });
    }
  });

  it('--allow-write lets the names it lists be written, and only those', { timeout: 90_000 }, async (ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    const home = makeHome(user);
    try {
      const [seen] = await runInSandbox(user, home, [attack(NAMES)], ['--sandbox', '--allow-write', '.bashrc,.git', '--allow-write', '.vscode']);
      const allowed = NAMES.filter(({ name }) => name === '.bashrc' || name.startsWith('.git/') || name === '.vscode');
      for (const { name, dir } of allowed) expect(seen).toContain(`${dir ? 'planted' : 'wrote'} ${name}`);
      for (const { name } of NAMES.filter((n) => !allowed.includes(n))) expect(seen).not.toMatch(new RegExp(`^(planted|wrote|removed) ${name.replaceAll('.', '\\.')}$`, 'm'));
      expect(existsSync(join(home, '.profile'))).toBe(false);
    } finally {
      rmSync(dirname(home), { recursive: true, force: true });
    }
  });

  it('in a working directory that holds a home: its files are kept, and it cannot be moved away for another', { timeout: 90_000 }, async (ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    const home = makeHome(user);
    const server = await startCheckedServer();
    try {
      server.enqueue(
        { content: [{ type: 'tool_use', id: 'toolu_h', name: 'bash', input: { command: 'echo evil >> home/.bashrc 2>&1; echo evil > home/.profile 2>&1; mv home away 2>&1; mkdir -p away2 && echo x > away2/y && echo outer-done' } }], stop_reason: 'tool_use' },
        { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' },
      );
      const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-ant-test-later', ANTHROPIC_BASE_URL: server.url, MODEL_ID: 'claude-test', HOME: home, AGENTLOOP_HOME: join(dirname(home), 'agent') });
      const run = await runCliAs(user, ['-p', 'go', '--dangerously-skip-permissions', '--sandbox'], { cwd: dirname(home), env });
      expect(run.code, run.stderr).toBe(0);
      const seen = resultText(lastToolResults(server.requests[1]?.body as never)[0] as never);
      expect(seen).toMatch(/home\/\.bashrc: Read-only file system/);
      expect(seen).toMatch(/home\/\.profile: Read-only file system/);
      expect(seen).toMatch(/mv: cannot move 'home' to 'away': Device or resource busy/);
      expect(seen).toMatch(/outer-done/); // the rest of the working directory is writable
      expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe(EXISTING['.bashrc']);
      expect(existsSync(join(home, '.profile'))).toBe(false);
    } finally {
      await server.close();
      rmSync(dirname(home), { recursive: true, force: true });
    }
  });

  it("another agent's placeholder stays while its command runs, though the agent that made it has ended", { timeout: 90_000 }, async (ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    const home = makeHome(user);
    const server = await startCheckedServer();
    try {
      // The first makes the placeholders (.zshenv among them) and ends while the second, started after it, still runs;
      // the second then writes .zshenv, which the first's exit must not have uncovered.
      server.enqueue(
        { content: [{ type: 'tool_use', id: 'toolu_a', name: 'bash', input: { command: 'touch a-started; while [ ! -e b-started ]; do sleep 0.05; done' } }], stop_reason: 'tool_use' },
        { content: [{ type: 'tool_use', id: 'toolu_b', name: 'bash', input: { command: 'touch b-started; while [ -e a-started ]; do sleep 0.05; done; echo evil > .zshenv 2>&1; echo b-done' } }], stop_reason: 'tool_use' },
        { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' },
        { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' },
      );
      const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-ant-test-later', ANTHROPIC_BASE_URL: server.url, MODEL_ID: 'claude-test', HOME: home, AGENTLOOP_HOME: join(dirname(home), 'agent') });
      const args = ['-p', 'go', '--dangerously-skip-permissions', '--sandbox'];
      const first = runCliAs(user, args, { cwd: home, env });
      await waitFor(() => existsSync(join(home, 'a-started')));
      const second = runCliAs(user, args, { cwd: home, env });
      expect((await first).code).toBe(0);
      rmSync(join(home, 'a-started'));
      expect((await second).code).toBe(0);
      const seen = server.requests.flatMap((r) => lastToolResults(r.body as never)).map(resultText).join('\n');
      expect(seen).toMatch(/\.zshenv: Read-only file system\nb-done/);
      expect(existsSync(join(home, '.zshenv'))).toBe(false);
    } finally {
      await server.close();
      rmSync(dirname(home), { recursive: true, force: true });
    }
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
