/**
 * A user's machine in miniature, for trying what the sandbox hides: a home with credentials, an
 * agent home with a transcript, .env files in and above the working directory, and unix sockets
 * that answer (outside the working directory, inside it, in /tmp, in a hidden folder, abstract).
 * Everything but the /tmp socket lives outside /tmp, /var/tmp and /run, which the sandbox
 * replaces anyway. Owned by `owner` when given (the unprivileged user a test runs the CLI as).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { scratchDir } from '../../support/scratch.js';

export interface Probe {
  /** What is tried, as docs/bash-tool.md names it. */
  name: string;
  command: string;
  /** Text only the target holds: seen when it is reachable. */
  marker: string;
}

export interface SandboxFixture {
  base: string;
  home: string;
  cwd: string;
  agentHome: string;
  /** HOME, AGENTLOOP_HOME and a variable naming a key file outside the home. */
  env: Record<string, string>;
  /** Files the sandbox hides (reachable without it). */
  secrets: Probe[];
  /** Sockets outside the working directory (they answer without the sandbox). */
  sockets: Probe[];
  /** Things that stay reachable in the sandbox: the task's files and socket, ordinary home files. */
  visible: Probe[];
  close(): Promise<void>;
}

/** `node connect.cjs PATH` prints what the socket at PATH (`@name`: abstract) says, or the error code. */
const CLIENT = `const net = require('net');
const target = process.argv[2].startsWith('@') ? '\\0' + process.argv[2].slice(1) : process.argv[2];
const c = net.connect(target);
c.setTimeout(5000, () => { console.log('TIMEOUT'); process.exit(0); });
c.on('data', (d) => process.stdout.write(String(d)));
c.on('end', () => process.exit(0));
c.on('error', (e) => { console.log(e.code); process.exit(0); });
`;

export async function makeSandboxFixture(owner?: string): Promise<SandboxFixture> {
  const scratch = scratchDir('agentloop-hide-');
  const base = scratch.dir;
  const tmp = mkdtempSync(join(tmpdir(), 'agentloop-hide-'));
  const home = join(base, 'home');
  const cwd = join(home, 'code', 'app');
  const agentHome = join(base, 'agent-home');
  const mark = (what: string) => `${what}-${randomUUID().slice(0, 8)}`;
  const put = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${text}\n`);
  };
  const file = (name: string, path: string): Probe => {
    const marker = mark('secret');
    put(path, marker);
    // With a redirection the command is not "plainly read-only": the probes run one at a time.
    return { name, command: `cat '${path}' 2>&1`, marker };
  };

  const secrets = [
    file('~/.ssh/id_rsa', join(home, '.ssh/id_rsa')),
    file('~/.aws/credentials', join(home, '.aws/credentials')),
    file('~/.config/gh/hosts.yml', join(home, '.config/gh/hosts.yml')),
    file('~/.netrc', join(home, '.netrc')),
    file('~/.gnupg/private-keys-v1.d/key', join(home, '.gnupg/private-keys-v1.d/key')),
    file('~/.docker/config.json', join(home, '.docker/config.json')),
    file('~/.kube/config', join(home, '.kube/config')),
    file('~/.npmrc', join(home, '.npmrc')),
    file('~/.git-credentials', join(home, '.git-credentials')),
    file('~/.bash_history', join(home, '.bash_history')),
    file('.env in the working directory (the key)', join(cwd, '.env')),
    file('.env.local in the working directory', join(cwd, '.env.local')),
    file('.env in a parent directory', join(home, 'code/.env')),
    file('.env in the home', join(home, '.env')),
    file('a transcript in $AGENTLOOP_HOME', join(agentHome, 'sessions', `${randomUUID()}.jsonl`)),
    file('the file $GOOGLE_APPLICATION_CREDENTIALS names', join(base, 'keys/service-account.json')),
  ];
  const visible = [
    file('a file in the working directory', join(cwd, 'notes.txt')),
    file('.env.example in the working directory', join(cwd, '.env.example')),
    file('an ordinary file in the home', join(home, 'projects/readme.txt')),
  ];
  writeFileSync(join(cwd, 'connect.cjs'), CLIENT);

  const servers: Server[] = [];
  const listen = async (name: string, path: string): Promise<Probe> => {
    const marker = mark('socket');
    if (!path.startsWith('@')) mkdirSync(dirname(path), { recursive: true });
    const server = createServer((socket) => socket.end(`${marker}\n`));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path.startsWith('@') ? `\0${path.slice(1)}` : path, resolve);
    });
    if (!path.startsWith('@')) chmodSync(path, 0o777); // any local user may connect: only the sandbox stands in the way
    servers.push(server);
    return { name, command: `node connect.cjs '${path}'`, marker };
  };
  const sockets = [
    await listen('a socket elsewhere (a daemon)', join(base, 'daemon/daemon.sock')),
    await listen('a socket in the home', join(home, '.cache/tool/tool.sock')),
    await listen('a socket in a hidden folder (~/.gnupg)', join(home, '.gnupg/S.gpg-agent')),
    await listen('a socket in /tmp', join(tmp, 'x11.sock')),
    await listen('an abstract socket', `@agentloop-hide-${randomUUID()}`),
  ];
  visible.push(await listen('a socket in the working directory', join(cwd, 'task.sock')));

  if (owner !== undefined) execFileSync('chown', ['-R', owner, base, tmp]);
  return {
    base,
    home,
    cwd,
    agentHome,
    env: { HOME: home, AGENTLOOP_HOME: agentHome, GOOGLE_APPLICATION_CREDENTIALS: join(base, 'keys/service-account.json') },
    secrets,
    sockets,
    visible,
    close: async () => {
      await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
      scratch.cleanup();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}
