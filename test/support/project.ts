/**
 * A project for a test that runs the CLI as a process: a local Messages API server that refuses
 * invalid histories, a scratch working directory, and the CLI's environment pointed at both (with
 * its own AGENTLOOP_HOME inside the directory).
 */
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { startCheckedServer } from './agentServer.js';
import { cliEnv } from './cli.js';
import type { MessagesServer, ServerOptions } from './messagesServer.js';
import type { TestUser } from './users.js';

export interface CliProject {
  server: MessagesServer;
  dir: string;
  /** `AGENTLOOP_HOME` of the runs: `dir/.home`. */
  home: string;
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export interface CliProjectOptions {
  apiKey?: string;
  /** Files written into the directory, by name. */
  files?: Record<string, string>;
  env?: Record<string, string>;
  server?: Omit<ServerOptions, 'validate'>;
}

export async function openCliProject(name: string, options: CliProjectOptions = {}): Promise<CliProject> {
  const server = await startCheckedServer(options.server);
  const dir = mkdtempSync(join(tmpdir(), `agentloop-${name}-`));
  const home = join(dir, '.home');
  for (const [file, text] of Object.entries(options.files ?? {})) writeFileSync(join(dir, file), text);
  const env = cliEnv({
    ANTHROPIC_API_KEY: options.apiKey ?? `sk-ant-test-${randomUUID()}`,
    ANTHROPIC_BASE_URL: server.url,
    MODEL_ID: 'claude-test',
    AGENTLOOP_HOME: home,
    ...options.env,
  });
  return {
    server,
    dir,
    home,
    env,
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface PerTestOptions extends CliProjectOptions {
  /** After each test: expect that the server refused no request for an invalid history (`server.violations` is empty). */
  noViolations?: boolean;
  /** Runs after each test, before the `noViolations` check and the close (which happens even when either throws). */
  beforeClose?: () => void;
}

/** A new project before each test of the file and closed after it; `use` is given it (to set the file's variables). */
export function cliProjectPerTest(name: string, use: (project: CliProject) => void, options: PerTestOptions = {}): void {
  const { noViolations, beforeClose, ...open } = options;
  let project: CliProject | undefined;
  beforeEach(async () => {
    project = await openCliProject(name, open);
    use(project);
  });
  afterEach(async () => {
    try {
      beforeClose?.();
      if (noViolations && project) expect(project.server.violations).toEqual([]);
    } finally {
      await project?.close();
      project = undefined;
    }
  });
}

export interface UserFolder {
  /** The checked Messages API server (throws when the folder was asked for without one). */
  readonly server: MessagesServer;
  /** The scratch folder: 755, so that nobody goes through it to the folders it owns. */
  readonly dir: string;
  /** How many folders `next()` has made. */
  readonly runs: number;
  /** A new folder in `dir`, made: one run's (`own` it once its files are in). */
  next(): string;
  /** Gives `path` and all below it to the user (nothing when the user is this process's). */
  own(path: string): void;
}

/**
 * For the tests of a block that run the CLI as `user` (test/support/users.ts; none: this process's): before them
 * (unless the user is skipped) a checked Messages API server, unless `server` is false, and a scratch folder; after
 * them the server closed and the folder removed.
 */
export function cliProjectFor(name: string, user: Pick<TestUser, 'owner' | 'skip'> = {}, options: { server?: boolean } = {}): UserFolder {
  let server: MessagesServer | undefined;
  let dir: string | undefined;
  let runs = 0;
  const own = (path: string) => user.owner !== undefined && execFileSync('chown', ['-R', user.owner, path]);
  beforeAll(async () => {
    if (user.skip !== undefined) return;
    if (options.server !== false) server = await startCheckedServer();
    dir = mkdtempSync(join(tmpdir(), `agentloop-${name}-`));
    chmodSync(dir, 0o755);
  });
  afterAll(async () => {
    await server?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
  const made = <T>(what: string, value: T | undefined): T => {
    if (value === undefined) throw new Error(`cliProjectFor(${name}): no ${what} (asked for before beforeAll, or without one)`);
    return value;
  };
  return {
    get server() {
      return made('server', server);
    },
    get dir() {
      return made('folder', dir);
    },
    get runs() {
      return runs;
    },
    next() {
      const path = join(made('folder', dir), `p${runs++}`);
      mkdirSync(path);
      return path;
    },
    own(path) {
      own(path);
    },
  };
}
