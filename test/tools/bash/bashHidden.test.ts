/**
 * What the sandbox hides, as a list and as bubblewrap mounts (src/tools/bash/run/hidden.ts, pure).
 * The mounts are checked by what a path shows once bubblewrap has made them in order (a later
 * mount covers an earlier one at and below its destination), by `view` below; the real thing is
 * tried in bashSandboxHide.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  ENV_PATHS,
  HOME_DIRS,
  HOME_FILES,
  hiddenPaths,
  isDotEnvName,
  isWithin,
  planMounts,
  selfAndAncestors,
  socketPaths,
  type Found,
  type MountInput,
} from '../../../src/tools/bash/run/hidden.js';

const HOME = '/home/u';
const CWD = '/home/u/code/app';

describe('hiddenPaths', () => {
  const base = { homes: [HOME, '/root'], agentloopHome: '/home/u/.agentloop', cwd: CWD, env: {} };

  it("lists the agent's home, each home's credential folders and files, and the system's secrets", () => {
    const paths = hiddenPaths(base).paths.map((p) => p.path);
    for (const required of ['.ssh', '.aws', '.config', '.netrc', '.gnupg', '.docker', '.kube', '.npmrc', '.git-credentials']) {
      expect(paths).toContain(`${HOME}/${required}`);
      expect(paths).toContain(`/root/${required}`);
    }
    expect(paths).toContain('/home/u/.agentloop');
    expect(paths).toContain('/etc/shadow');
    expect(paths.length).toBe(1 + 2 * (HOME_DIRS.length + HOME_FILES.length) + 8);
  });

  it('adds the paths the environment names, each path of KUBECONFIG, and the extra ones', () => {
    const env = { KUBECONFIG: '/k/a:/k/b', GOOGLE_APPLICATION_CREDENTIALS: '/keys/sa.json', SSH_AUTH_SOCK: '/tmp/ssh-x/agent.1', UNRELATED: '/x' };
    const paths = hiddenPaths({ ...base, env, extra: ['/store/sessions'] }).paths;
    for (const p of ['/k/a', '/k/b', '/keys/sa.json', '/tmp/ssh-x/agent.1', '/store/sessions']) expect(paths.map((h) => h.path)).toContain(p);
    expect(paths.find((h) => h.path === '/keys/sa.json')?.why).toBe('$GOOGLE_APPLICATION_CREDENTIALS');
    expect(paths.map((h) => h.path)).not.toContain('/x');
    expect(ENV_PATHS).toContain('AWS_SHARED_CREDENTIALS_FILE');
  });

  it('ignores a relative path, and one that would hide a home or everything', () => {
    const env = { XDG_CONFIG_HOME: HOME, DOCKER_CONFIG: '/', GNUPGHOME: 'rel/gnupg', NETRC: '/home' };
    const paths = hiddenPaths({ ...base, env, agentloopHome: HOME }).paths.map((p) => p.path);
    for (const p of [HOME, '/', 'rel/gnupg', '/home']) expect(paths).not.toContain(p);
  });

  it('looks for .env files in the working directory, every directory above it, and the homes', () => {
    expect(hiddenPaths(base).dotEnvDirs).toEqual([CWD, '/home/u/code', HOME, '/home', '/', '/root']);
    expect(selfAndAncestors('/')).toEqual(['/']);
  });
});

describe('isDotEnvName', () => {
  it.each([['.env'], ['.envrc'], ['.env.local'], ['.env.production'], ['.env.development.local'], ['.env.test']])('%s is hidden', (name) => {
    expect(isDotEnvName(name)).toBe(true);
  });
  it.each([['.env.example'], ['.env.sample'], ['.env.template'], ['.env.dist'], ['.env.defaults'], ['env'], ['x.env'], ['.environment'], ['.envs']])(
    '%s is not',
    (name) => expect(isDotEnvName(name)).toBe(false),
  );
});

describe('socketPaths', () => {
  it('takes the paths of bound sockets, not abstract nor unbound ones', () => {
    const listing = [
      'Num       RefCount Protocol Flags    Type St Inode Path',
      '0000000000000000: 00000002 00000000 00010000 0001 01 10856 /run/docker.sock',
      '0000000000000000: 00000002 00000000 00010000 0001 01 10857 @agentloop-abstract',
      '0000000000000000: 00000003 00000000 00000000 0001 03   649',
      '0000000000000000: 00000003 00000000 00000000 0002 01 11111 /home/u/my sockets/a b.sock',
      '0000000000000000: 00000003 00000000 00000000 0001 03 11112 /run/docker.sock',
      '0000000000000000: 00000003 00000000 00000000 0001 03 11113 relative.sock',
      '',
    ].join('\n');
    expect(socketPaths(listing)).toEqual(['/run/docker.sock', '/home/u/my sockets/a b.sock']);
  });
});

/** What `path` shows after bubblewrap made the mounts of `args` (after `--ro-bind / /`), in order. */
function view(args: string[], path: string): 'host' | 'host-ro' | 'empty-dir' | 'empty-file' | 'cwd' {
  type M = { dest: string; shows: ReturnType<typeof view> };
  const mounts: M[] = [{ dest: '/', shows: 'host-ro' }];
  for (let i = 0; i < args.length; ) {
    const option = args[i] as string;
    if (option === '--tmpfs') {
      mounts.push({ dest: args[i + 1] as string, shows: 'empty-dir' });
      i += 2;
    } else if (option === '--remount-ro') {
      i += 2;
    } else {
      const [src, dest] = [args[i + 1] as string, args[i + 2] as string];
      const shows = src === EMPTY ? 'empty-file' : option === '--bind' ? 'cwd' : 'host-ro';
      mounts.push({ dest, shows });
      i += 3;
    }
  }
  const top = mounts.filter((m) => isWithin(path, m.dest)).pop() as M;
  return top.shows;
}

const EMPTY = '/tmp/agentloop-sandbox-x/empty';
const dir = (real: string): Found => ({ real, dir: true });
const file = (real: string): Found => ({ real, dir: false });
const plan = (over: Partial<MountInput>) =>
  planMounts({
    cwd: CWD,
    privateDirs: [dir('/tmp'), dir('/run'), dir('/var/tmp')],
    hidden: [],
    sockets: [],
    reveal: [],
    revealFromPrivate: [],
    empty: EMPTY,
    ...over,
  });

describe('planMounts', () => {
  it('empties /tmp, /run and /var/tmp, binds the working directory, and hides what is asked', () => {
    const args = plan({ hidden: [dir(`${HOME}/.ssh`), file(`${HOME}/.netrc`), file(`${CWD}/.env`), file(`${HOME}/.ssh/id_rsa`)] });
    expect(view(args, '/tmp/x')).toBe('empty-dir');
    expect(view(args, '/run/docker.sock')).toBe('empty-dir');
    expect(view(args, `${CWD}/src/a.ts`)).toBe('cwd');
    expect(view(args, `${CWD}/.env`)).toBe('empty-file');
    expect(view(args, `${HOME}/.ssh/id_rsa`)).toBe('empty-dir');
    expect(view(args, `${HOME}/.netrc`)).toBe('empty-file');
    expect(view(args, '/usr/bin/node')).toBe('host-ro');
    // A file inside a hidden folder gets no mount of its own (its mount point would not exist).
    expect(args.join(' ')).not.toContain(`${HOME}/.ssh/id_rsa`);
    expect(args.slice(-2)).toEqual(['--remount-ro', `${HOME}/.ssh`]);
  });

  it('keeps the working directory reachable inside a hidden folder or a private one', () => {
    const args = plan({ cwd: `${HOME}/.config/tool/src`, hidden: [dir(`${HOME}/.config`)] });
    expect(view(args, `${HOME}/.config/tool/src/main.c`)).toBe('cwd');
    expect(view(args, `${HOME}/.config/gh/hosts.yml`)).toBe('empty-dir');
    const inTmp = plan({ cwd: '/tmp/work', hidden: [file('/tmp/work/.env')] });
    expect(view(inTmp, '/tmp/work/a')).toBe('cwd');
    expect(view(inTmp, '/tmp/work/.env')).toBe('empty-file');
    expect(view(inTmp, '/tmp/other')).toBe('empty-dir');
  });

  it('hides what is inside the working directory when it is a home, and does not remount it read-only', () => {
    const args = plan({ cwd: HOME, hidden: [dir(`${HOME}/.ssh`), dir(HOME)] });
    expect(view(args, `${HOME}/notes.txt`)).toBe('cwd');
    expect(view(args, `${HOME}/.ssh/id_rsa`)).toBe('empty-dir');
    expect(args.filter((_, i) => args[i - 1] === '--remount-ro')).toEqual([`${HOME}/.ssh`]);
  });

  it('covers each socket outside the working directory that is not already out of sight', () => {
    const sockets = ['/dev/log', '/var/lib/mysql/mysql.sock', '/run/docker.sock', `${HOME}/.gnupg/S.gpg-agent`, `${CWD}/test.sock`, `${HOME}/.cache/x.sock`];
    const args = plan({ sockets, hidden: [dir(`${HOME}/.gnupg`)] });
    expect(view(args, '/var/lib/mysql/mysql.sock')).toBe('empty-file');
    expect(view(args, `${HOME}/.cache/x.sock`)).toBe('empty-file');
    expect(view(args, `${CWD}/test.sock`)).toBe('cwd');
    expect(view(args, '/run/docker.sock')).toBe('empty-dir');
    expect(view(args, `${HOME}/.gnupg/S.gpg-agent`)).toBe('empty-dir');
    expect(args).not.toContain('/dev/log'); // the sandbox's /dev is its own
    expect(args.filter((a) => a.endsWith('.sock') || a.includes('S.gpg'))).toEqual([
      '/var/lib/mysql/mysql.sock',
      `${HOME}/.cache/x.sock`,
    ]);
  });

  it('shows the saved output again, and PATH folders only when a private directory covered them', () => {
    const saved = '/home/u/.agentloop/sessions/abc';
    const args = plan({
      hidden: [dir('/home/u/.agentloop'), dir(`${HOME}/.config`)],
      reveal: [saved, '/usr/share'],
      revealFromPrivate: ['/run/current-system/sw/bin', `${HOME}/.config/bin`, '/usr/bin'],
    });
    expect(view(args, `${saved}/1/output.txt`)).toBe('host-ro');
    expect(view(args, '/home/u/.agentloop/sessions/other.jsonl')).toBe('empty-dir');
    expect(view(args, '/run/current-system/sw/bin/git')).toBe('host-ro');
    expect(view(args, `${HOME}/.config/bin/tool`)).toBe('empty-dir');
    expect(args.filter((a) => a === '/usr/bin' || a === '/usr/share')).toEqual([]);
    // The read-only remounts come after every mount point made inside them.
    expect(args.lastIndexOf('--ro-bind-try')).toBeLessThan(args.indexOf('--remount-ro'));
  });

  it("shows a program's own folder from /tmp read-only, with what is hidden in it still hidden and the working directory in it writable", () => {
    const args = plan({
      cwd: '/tmp/tools/work',
      hidden: [file('/tmp/tools/.env'), dir('/tmp/tools/home/.agentloop')],
      programs: ['/tmp/tools', '/usr/lib/node_modules/server'],
    });
    expect(view(args, '/tmp/tools/server/index.js')).toBe('host-ro');
    expect(view(args, '/tmp/tools/.env')).toBe('empty-file');
    expect(view(args, '/tmp/tools/home/.agentloop/sessions/a.jsonl')).toBe('empty-dir');
    expect(view(args, '/tmp/tools/work/a.txt')).toBe('cwd');
    expect(view(args, '/tmp/other')).toBe('empty-dir');
    expect(args).not.toContain('/usr/lib/node_modules/server'); // visible already: no mount
    // Without it, the program's folder is as empty as the rest of /tmp.
    expect(view(plan({ cwd: '/tmp/tools/work' }), '/tmp/tools/server/index.js')).toBe('empty-dir');
  });

  it('hides a path listed twice once', () => {
    const args = plan({ hidden: [dir(`${HOME}/.config`), dir(`${HOME}/.config`)] });
    expect(args.filter((a) => a === `${HOME}/.config`)).toHaveLength(2); // --tmpfs and --remount-ro
  });
});
