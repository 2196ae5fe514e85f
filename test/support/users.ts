/**
 * "Every security test runs as root AND as an unprivileged user": the users a test runs the CLI (or any program) as.
 * As root, the second is `nobody`, through `setpriv --reuid=65534 --regid=65534 --clear-groups`; as any other user
 * the cases already run unprivileged and the second is skipped, saying why. So is it where `nobody` cannot run the
 * checkout's CLI (a folder on its path private to its owner: CI makes the clone's folder 755).
 */
import { spawn, spawnSync } from 'node:child_process';
import { CLI, type CliRun } from './cli.js';

export interface TestUser {
  /** How the test names the user. */
  name: string;
  /** What goes before a program to run it as this user (empty for this process's own user). */
  prefix: string[];
  /** `chown` owner for the files the user must own (the project), when not this process's user. */
  owner?: string;
  /** Why this user cannot be tried here. */
  skip?: string;
}

export const NOBODY_PREFIX = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--'];

/** This user, and an unprivileged one when this is root (or why not). */
export function testUsers(): TestUser[] {
  const self: TestUser = { name: process.getuid?.() === 0 ? 'root' : 'this user', prefix: [] };
  if (process.getuid?.() !== 0) return [self, { name: 'nobody', prefix: [], skip: 'this user is not root: the cases above ran unprivileged' }];
  const tried = spawnSync(NOBODY_PREFIX[0] as string, [...NOBODY_PREFIX.slice(1), 'test', '-r', CLI], { cwd: '/' });
  if (tried.error !== undefined) return [self, { name: 'nobody', prefix: [], skip: `cannot run as nobody (${tried.error.message})` }];
  if (tried.status !== 0) return [self, { name: 'nobody', prefix: [], skip: `nobody cannot read the checkout's ${CLI} (a folder on its path is private to its owner)` }];
  return [self, { name: 'nobody', prefix: NOBODY_PREFIX, owner: '65534:65534' }];
}

/** Runs `program args` as `user`, stdin closed; resolves with its exit and output. */
export function runAs(user: Pick<TestUser, 'prefix'>, program: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<CliRun> {
  const [file, ...rest] = [...user.prefix, program, ...args] as [string, ...string[]];
  const child = spawn(file, rest, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

/** Runs the CLI (`node dist/cli/main.js args`) as `user`. */
export function runCliAs(user: Pick<TestUser, 'prefix'>, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<CliRun> {
  return runAs(user, process.execPath, [CLI, ...args], options);
}
