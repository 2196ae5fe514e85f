/**
 * What the sandbox hides from a command, and the bubblewrap mounts that hide it. Pure: paths in,
 * paths and arguments out; sandbox.ts looks at the disk (what exists, of what kind, the sockets).
 *
 * - Secrets of the user's account: in each home (`$HOME` and the account's home from passwd)
 *   the directories of HOME_DIRS and the files of HOME_FILES; the paths that well-known variables
 *   name (ENV_PATHS); the system's own (SYSTEM_FILES, readable only as root).
 * - The agent's state: `$AGENTLOOP_HOME` (default `~/.agentloop`: every transcript, the running
 *   session's included), and what the caller adds (the session store it writes to).
 * - `.env` files (DOTENV rule) in the working directory and every directory above it.
 * - Unix sockets: /tmp, /var/tmp and /run are empty and private (PRIVATE_DIRS), and any other
 *   socket the kernel lists (/proc/net/unix) outside the working directory is covered too.
 *   Abstract sockets are out of reach without this: they belong to a network namespace, and the
 *   sandbox has its own (`--unshare-net`).
 *
 * A directory is hidden under an empty tmpfs, remounted read-only; a file (or socket) under an
 * empty read-only file. The working directory stays reachable, even inside a hidden directory,
 * but what is hidden inside it (its `.env`, say) stays hidden.
 */
import { isAbsolute, join, parse, sep } from 'node:path';

export const HOME_DIRS = [
  '.ssh', '.aws', '.config', '.gnupg', '.docker', '.kube', '.azure', '.oci', '.password-store',
  '.local/share/keyrings', '.pki', '.mozilla', '.claude', '.terraform.d', '.fly',
] as const;

export const HOME_FILES = [
  '.netrc', '.git-credentials', '.npmrc', '.yarnrc', '.yarnrc.yml', '.pypirc', '.pgpass', '.my.cnf',
  '.vault-token', '.s3cfg', '.boto', '.claude.json', '.Xauthority', '.ICEauthority', '.dockercfg',
  '.terraformrc', '.cargo/credentials', '.cargo/credentials.toml', '.m2/settings.xml',
  '.m2/settings-security.xml', '.gradle/gradle.properties', '.gem/credentials', '.composer/auth.json',
  '.bash_history', '.zsh_history', '.python_history', '.node_repl_history', '.psql_history',
  '.mysql_history', '.sqlite_history', '.rediscli_history', '.lesshst', '.viminfo',
] as const;

/** Variables whose value is the path of credentials or of a user's private state (KUBECONFIG: a list). */
export const ENV_PATHS = [
  'AWS_SHARED_CREDENTIALS_FILE', 'AWS_CONFIG_FILE', 'KUBECONFIG', 'DOCKER_CONFIG', 'DOCKER_CERT_PATH',
  'GNUPGHOME', 'NPM_CONFIG_USERCONFIG', 'npm_config_userconfig', 'NETRC', 'GOOGLE_APPLICATION_CREDENTIALS',
  'CLOUDSDK_CONFIG', 'AZURE_CONFIG_DIR', 'CLAUDE_CONFIG_DIR', 'PASSWORD_STORE_DIR', 'XDG_CONFIG_HOME',
  'XDG_RUNTIME_DIR', 'XAUTHORITY', 'PGPASSFILE', 'BOTO_CONFIG', 'TF_CLI_CONFIG_FILE', 'HISTFILE', 'SSH_AUTH_SOCK',
] as const;

export const SYSTEM_FILES = [
  '/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-',
  '/etc/ssh/ssh_host_rsa_key', '/etc/ssh/ssh_host_ecdsa_key', '/etc/ssh/ssh_host_ed25519_key', '/etc/ssh/ssh_host_dsa_key',
] as const;

/** Private, empty and writable in the sandbox: where sockets and other users' temporary files live. */
export const PRIVATE_DIRS = ['/tmp', '/var/tmp', '/run', '/var/run'] as const;

/** `.env`, `.envrc` and `.env.*` (`.env.local`, `.env.production`), but not the examples meant to be read. */
export function isDotEnvName(name: string): boolean {
  if (name === '.env' || name === '.envrc') return true;
  return name.startsWith('.env.') && !/\.(example|sample|template|dist|defaults)$/.test(name);
}

export interface HideInput {
  /** `$HOME` and the account's home (may be the same). */
  homes: string[];
  /** `$AGENTLOOP_HOME`, or its default. */
  agentloopHome: string;
  /** The working directory (a real path). */
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** More paths to hide (the session store the agent writes to, a key file). */
  extra?: readonly string[];
}

export interface Hidden {
  path: string;
  why: string;
}

/** True when `path` is `dir` or inside it (both absolute and normalized). */
export function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);
}

/** `dir` and every directory above it, up to the root. */
export function selfAndAncestors(dir: string): string[] {
  const out = [dir];
  const { root } = parse(dir);
  for (let d = dir; d !== root; ) {
    d = join(d, '..');
    out.push(d);
  }
  return out;
}

/**
 * The paths to hide (whether each exists is for the caller to see), and the directories whose
 * `.env` files (isDotEnvName) are to be hidden too.
 */
export function hiddenPaths(input: HideInput): { paths: Hidden[]; dotEnvDirs: string[] } {
  const homes = [...new Set(input.homes.filter((h) => isAbsolute(h) && h !== '/'))];
  // A variable naming `/` or a home would hide everything: such a value is taken for a mistake.
  const tooBroad = (p: string) => p === '/' || homes.some((h) => isWithin(h, p));
  const paths: Hidden[] = [];
  const add = (path: string, why: string) => {
    if (isAbsolute(path) && !tooBroad(path)) paths.push({ path: join(path), why });
  };
  add(input.agentloopHome, "the agent's home ($AGENTLOOP_HOME): sessions and transcripts");
  for (const path of input.extra ?? []) add(path, "the agent's own files");
  for (const home of homes) {
    for (const name of HOME_DIRS) add(join(home, name), `~/${name}`);
    for (const name of HOME_FILES) add(join(home, name), `~/${name}`);
  }
  for (const name of ENV_PATHS) {
    const value = input.env[name] ?? '';
    for (const path of name === 'KUBECONFIG' ? value.split(':') : [value]) add(path, `$${name}`);
  }
  for (const file of SYSTEM_FILES) add(file, file);
  const dotEnvDirs = [...new Set([...selfAndAncestors(input.cwd), ...homes])];
  return { paths, dotEnvDirs };
}

/** The paths of the sockets bound to a path in a `/proc/net/unix` listing (not the abstract ones). */
export function socketPaths(procNetUnix: string): string[] {
  const out = new Set<string>();
  for (const line of procNetUnix.split('\n').slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path: the path is the rest of the line.
    const match = /^\s*\S+:\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\d+ (.+)$/.exec(line);
    const path = match?.[1];
    if (path !== undefined && path.startsWith('/')) out.add(path);
  }
  return [...out];
}

/** A path that exists, resolved (symbolic links followed), and whether it is a directory. */
export interface Found {
  real: string;
  dir: boolean;
}

export interface MountInput {
  /** The working directory (a real path): bound read-write. */
  cwd: string;
  /** The PRIVATE_DIRS that exist. */
  privateDirs: Found[];
  /** What to hide, as found on disk. */
  hidden: Found[];
  /** Real paths of the sockets found (socketPaths, resolved, still sockets). */
  sockets: string[];
  /** Folders to show read-only again wherever they are (the saved output of long commands). */
  reveal: string[];
  /** Folders shown read-only again only when a private directory covers them (PATH entries). */
  revealFromPrivate: string[];
  /**
   * A long-lived program's own files kept in a private directory (programs.ts: the folder under /tmp its script came
   * in), shown read-only before anything is hidden, so that what is hidden in them stays hidden and the working
   * directory stays writable inside them.
   */
  programs?: string[];
  /** An empty read-only file, bound over each hidden file. */
  empty: string;
  /** Files that run later (protect.ts): folders pinned in place, then paths bound read-only, where not hidden already. */
  protect?: { pins: readonly string[]; readOnly: readonly string[] };
}

interface Mount {
  dest: string;
  host: boolean;
}

/** The bubblewrap mounts, after `--ro-bind / /`, `--dev /dev` and `--proc /proc`. */
export function planMounts(input: MountInput): string[] {
  // `--dev /dev` and `--proc /proc` come before: the host's are out of sight already.
  const mounts: Mount[] = [{ dest: '/', host: true }, { dest: '/dev', host: false }, { dest: '/proc', host: false }];
  const args: string[] = [];
  const top = (path: string): Mount => {
    for (let i = mounts.length - 1; i > 0; i--) if (isWithin(path, (mounts[i] as Mount).dest)) return mounts[i] as Mount;
    return mounts[0] as Mount;
  };
  const visible = (path: string) => top(path).host;
  const covered = new Set<string>();
  const tmpfs = (dest: string, readOnly: boolean) => {
    args.push('--tmpfs', dest);
    mounts.push({ dest, host: false });
    if (readOnly) covered.add(dest);
  };
  const cover = (f: Found) => {
    if (!visible(f.real)) return;
    if (f.dir) tmpfs(f.real, true);
    else {
      args.push('--ro-bind', input.empty, f.real);
      mounts.push({ dest: f.real, host: false });
    }
  };
  const bind = (option: string, path: string) => {
    args.push(option, path, path);
    mounts.push({ dest: path, host: true });
  };

  const byDepth = (a: Found, b: Found) => a.real.split(sep).length - b.real.split(sep).length;
  for (const d of [...input.privateDirs].sort(byDepth)) if (d.dir && visible(d.real)) tmpfs(d.real, false);
  for (const path of input.programs ?? []) {
    if (!visible(path) && input.privateDirs.some((p) => p.real === top(path).dest)) bind('--ro-bind-try', path);
  }
  const hidden = [...new Map(input.hidden.map((f) => [f.real, f])).values()].sort(byDepth);
  for (const f of hidden) if (f.dir && isWithin(input.cwd, f.real)) cover(f);
  bind('--bind', input.cwd);
  for (const f of hidden) if (!(f.dir && isWithin(input.cwd, f.real))) cover(f);
  for (const dir of input.reveal) if (!visible(dir)) bind('--ro-bind-try', dir);
  for (const dir of input.revealFromPrivate) {
    if (!visible(dir) && input.privateDirs.some((p) => p.real === top(dir).dest)) bind('--ro-bind-try', dir);
  }
  for (const socket of new Set(input.sockets)) {
    if (visible(socket) && top(socket).dest !== input.cwd) cover({ real: socket, dir: false });
  }
  const depth = (path: string) => path.split(sep).length;
  const protectedMounts = [
    ...(input.protect?.pins ?? []).map((path) => ({ path, option: '--bind' })),
    ...(input.protect?.readOnly ?? []).map((path) => ({ path, option: '--ro-bind' })),
  ].sort((a, b) => depth(a.path) - depth(b.path));
  for (const { path, option } of protectedMounts) if (visible(path) && isWithin(path, input.cwd)) bind(option, path);
  // Last: a read-only directory gets no more mount points. Not where the working directory sits on it.
  for (const dest of covered) if (dest !== input.cwd) args.push('--remount-ro', dest);
  return args;
}
