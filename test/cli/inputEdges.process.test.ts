/**
 * Bad places and names, as processes: a directory where a session's lock file goes (made by this user, and by
 * another: root's, as nobody), a port already taken given to `view --port` and `--step --port`, and a transcript
 * whose header holds an id that is no id (`$'`, written by hand or another program). Each is one line that names the
 * path or the port and what to do, never `internal error` and a stack trace; the odd id is listed, viewed and resumed
 * by the name the store finds it by.
 */
import { randomUUID } from 'node:crypto';
import { chownSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, startCli } from '../support/cli.js';
import { cliProjectFor } from '../support/project.js';
import { runCliAs, testUsers } from '../support/users.js';

const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], stop_reason: 'end_turn' as const });
const NO_STACK = /internal error|\n\s+at /;

describe.each(testUsers())('a directory at the lock path, as $name', (user) => {
  const folder = cliProjectFor('input-edges', user);

  function project() {
    const cwd = folder.next();
    const home = join(cwd, 'home');
    mkdirSync(home);
    folder.own(cwd);
    const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-ant-test-edges', ANTHROPIC_BASE_URL: folder.server.url, MODEL_ID: 'claude-test', AGENTLOOP_HOME: home });
    return { cwd, home, env };
  }

  it.skipIf(user.skip !== undefined)("--resume: one line naming the lock's path and what to do, exit 2; this user's directory and another's", async () => {
    for (const owner of ['this user', 'root'] as const) {
      if (owner === 'root' && user.owner === undefined) continue; // as root, a directory of another user is not a case
      const p = project();
      const id = randomUUID();
      folder.server.enqueue(answer('first'));
      const first = await runCliAs(user, ['-p', 'hello', '--session-id', id], { cwd: p.cwd, env: p.env });
      expect(first.code, first.stderr).toBe(0);
      const lock = join(p.home, 'sessions', `${id}.lock`);
      mkdirSync(lock);
      if (owner === 'this user' && user.owner !== undefined) chownSync(lock, 65534, 65534);
      const run = await runCliAs(user, ['-p', 'again', '--resume', id], { cwd: p.cwd, env: p.env });
      expect(run.stderr).not.toMatch(NO_STACK);
      expect(run.stderr).toBe(`agentloop: ${lock} is a directory, where the session's lock file goes: remove it to go on with the session\n`);
      expect(run.code).toBe(2);
    }
  });

  it.skipIf(user.skip !== undefined)('a new session (--session-id): the run goes on unsaved, and says why in one line', async () => {
    const p = project();
    const id = randomUUID();
    mkdirSync(join(p.home, 'sessions'), { recursive: true });
    mkdirSync(join(p.home, 'sessions', `${id}.lock`));
    if (user.owner !== undefined) chownSync(join(p.home, 'sessions'), 65534, 65534);
    folder.server.enqueue(answer('still answered'));
    const run = await runCliAs(user, ['-p', 'hello', '--session-id', id], { cwd: p.cwd, env: p.env });
    expect(run.stderr).not.toMatch(NO_STACK);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('still answered\n');
    expect(run.stderr).toContain(`is a directory, where the session's lock file goes: remove it to go on with the session`);
  });
});

describe('a port already taken', () => {
  const folder = cliProjectFor('input-edges-port');
  let taken: Server;
  let port: number;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    port = (taken.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  const line = () => `agentloop: port ${port} on 127.0.0.1 is in use (by another program, or another agentloop page): give another --port, or none to take a free one\n`;

  it.each([
    ['view --port', () => ['view', '--port', String(port)]],
    ['-p --step --port', () => ['-p', 'hello', '--step', '--port', String(port)]],
    ['-p --view --port', () => ['-p', 'hello', '--view', '--port', String(port)]],
  ])('%s: one line naming the port and what to do, exit 2', async (_name, args) => {
    const cwd = folder.next();
    const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-ant-test-edges', ANTHROPIC_BASE_URL: folder.server.url, MODEL_ID: 'claude-test', AGENTLOOP_HOME: join(cwd, 'home') });
    const asked = folder.server.requests.length;
    const run = await startCli(args(), { cwd, env }).done;
    expect(run.stderr).not.toMatch(NO_STACK);
    expect(run.stderr.endsWith(line())).toBe(true);
    expect(run.code).toBe(2);
    expect(folder.server.requests).toHaveLength(asked);
  });

  it('worker --port: one line naming the port and what to do, exit 2', async () => {
    const cwd = folder.next();
    const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-ant-test-edges', MODEL_ID: 'claude-test', AGENTLOOP_HOME: join(cwd, 'home') });
    const run = await startCli(['worker', '--port', String(port)], { cwd, env }).done;
    expect(run.stderr).not.toMatch(NO_STACK);
    expect(run.stderr.endsWith(`agentloop: port ${port} on 127.0.0.1 is in use (by another program, or another worker): give another --port (0: any free one)\n`)).toBe(true);
    expect(run.code).toBe(2);
  });
});

describe("a transcript whose header holds an id that is no id ($')", () => {
  const folder = cliProjectFor('input-edges-id');

  it('sessions lists it by its file name; view serves it; --resume goes on with it', async () => {
    const cwd = folder.next();
    const home = join(cwd, 'home');
    const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-ant-test-edges', ANTHROPIC_BASE_URL: folder.server.url, MODEL_ID: 'claude-test', AGENTLOOP_HOME: home });
    const id = randomUUID();
    folder.server.enqueue(answer('first'));
    expect((await startCli(['-p', 'hello', '--session-id', id], { cwd, env }).done).code).toBe(0);
    // Another program rewrites the header's id: the file keeps its name.
    const path = join(home, 'sessions', `${id}.jsonl`);
    const [header, ...rest] = readFileSync(path, 'utf8').split('\n');
    writeFileSync(`${path}.new`, [JSON.stringify({ ...JSON.parse(header as string), id: "odd$'id`x" }), ...rest].join('\n'));
    renameSync(`${path}.new`, path);

    const listed = await startCli(['sessions', '--output-format', 'json'], { cwd, env }).done;
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { id: string }[]).map((s) => s.id)).toEqual([id]);

    const view = startCli(['view', id, '--port', '0'], { cwd, env });
    const url = await new Promise<string>((resolve) => {
      const poll = setInterval(() => {
        const found = /^(http:\S+)\n/.exec(view.output().stdout)?.[1];
        if (found) resolve(found), clearInterval(poll);
      }, 50);
    });
    const token = new URL(url).searchParams.get('token') as string;
    const timeline = await fetch(new URL(`/api/sessions/${id}?token=${token}`, url));
    expect(timeline.status).toBe(200);
    view.child.kill('SIGINT');
    await view.done;

    folder.server.enqueue(answer('second'));
    const resumed = await startCli(['-p', 'again', '--resume', id, '--output-format', 'json'], { cwd, env }).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ session_id: id, result: 'second' });
  });

  it('an id that is no id is refused where it is given, escaped: --session-id, view, --resume', async () => {
    const cwd = folder.next();
    const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-ant-test-edges', ANTHROPIC_BASE_URL: folder.server.url, MODEL_ID: 'claude-test', AGENTLOOP_HOME: join(cwd, 'home') });
    const asked = folder.server.requests.length;
    for (const args of [['-p', 'hi', '--session-id', "a$'b"], ['view', "a$'b\u001b[2J"], ['-p', 'hi', '--resume', "a$'b"]]) {
      const run = await startCli(args, { cwd, env }).done;
      expect(run.stderr).not.toMatch(NO_STACK);
      expect(run.stderr).not.toContain('\u001b');
      expect(run.stderr.split('\n').filter((l) => l.startsWith('agentloop: '))).toHaveLength(1);
      expect(run.code).toBe(2);
    }
    expect(folder.server.requests).toHaveLength(asked);
  });
});

describe('files read on the way, bounded', () => {
  const folder = cliProjectFor('input-edges-files');

  it('--mcp-config, .mcp.json and --system-prompt-file that never end (/dev/zero) or are huge: one line each, never all of it read', async () => {
    const cwd = folder.next();
    const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-ant-test-edges', ANTHROPIC_BASE_URL: folder.server.url, MODEL_ID: 'claude-test', AGENTLOOP_HOME: join(cwd, 'home') });
    const asked = folder.server.requests.length;
    const config = await startCli(['-p', 'hi', '--mcp-config', '/dev/zero'], { cwd, env }).done;
    expect(config.stderr).toBe('agentloop: cannot read MCP config: /dev/zero is over 64 MB, more than agentloop reads of such a file\n');
    expect(config.code).toBe(2);
    const prompt = await startCli(['-p', 'hi', '--system-prompt-file', '/dev/zero'], { cwd, env }).done;
    expect(prompt.stderr.split('\n')[0]).toBe('agentloop: --system-prompt-file /dev/zero is over 24 MB, more than agentloop reads of such a file');
    expect(prompt.code).toBe(1);
    expect(folder.server.requests).toHaveLength(asked);
    // A project's .mcp.json of 70 MB: left out with one line, the run goes on.
    writeFileSync(join(cwd, '.mcp.json'), `{"mcpServers":{},"pad":"${'x'.repeat(70 * 1024 * 1024)}"}`);
    folder.server.enqueue(answer('went on'));
    const project = await startCli(['-p', 'hi'], { cwd, env }).done;
    expect(project.stderr).not.toMatch(NO_STACK);
    expect(project.stderr).toContain(`agentloop: ${join(cwd, '.mcp.json')} is over 64 MB, more than agentloop reads of such a file: its MCP servers are left out`);
    expect([project.code, project.stdout]).toEqual([0, 'went on\n']);
  });
});
