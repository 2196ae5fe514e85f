/**
 * What the hint tests share (test/cli/hints*.test.ts): a user after the README's install, who runs agentloop as the
 * README writes it (`node dist/cli/main.js …`, from the checkout) with no `agentloop` on the PATH, and pastes the
 * commands agentloop prints into sh, from another directory.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The README's way to run agentloop after `npm ci`, from the checkout. */
export const README = 'node dist/cli/main.js';

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A user's folders (a scratch `dir`, and `elsewhere` in it to paste hints in) and environment: PATH, HOME and AGENTLOOP_HOME only. */
export function hintUser(name: string): { dir: string; elsewhere: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), `agentloop-${name}-`));
  const elsewhere = join(dir, 'elsewhere');
  mkdirSync(elsewhere);
  // A user's PATH: node on it, no agentloop (none is installed by the README's steps).
  const path = [dirname(process.execPath), ...(process.env.PATH ?? '').split(delimiter)].filter((d) => d && !existsSync(join(d, 'agentloop')));
  return { dir, elsewhere, env: { PATH: path.join(delimiter), HOME: join(dir, 'home'), AGENTLOOP_HOME: join(dir, 'sessions'), NO_COLOR: '1' } };
}

/** `line` through sh in `cwd` with `env`, stdin empty. */
export function sh(line: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  const child = spawn('sh', ['-c', line], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** The first match's group 1 of `pattern` in `text`, or a failure naming what was looked for. */
export function hint(text: string, pattern: RegExp): string {
  const found = pattern.exec(text)?.[1];
  if (!found) throw new Error(`no hint ${pattern} in:\n${text}`);
  return found;
}

/** A command that serves until stopped, started through sh (`exec`, so that a signal reaches it). */
export interface Serving {
  output(): { stdout: string; stderr: string };
  /** What it printed (stdout and stderr) once `pattern` is in it: looks at what came, then at what comes; fails if it ends first. */
  ready(pattern: RegExp): Promise<string>;
  /** Ctrl-C (SIGINT), as a user stops it; its exit code. */
  stop(): Promise<number | null>;
}

export function serve(line: string, cwd: string, env: NodeJS.ProcessEnv): Serving {
  const child = spawn('sh', ['-c', `exec ${line}`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const ended = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    output: () => ({ stdout, stderr }),
    ready: (pattern) =>
      new Promise((resolve, reject) => {
        const look = () => pattern.test(stdout + stderr) && resolve(stdout + stderr);
        look();
        child.stdout.on('data', look);
        child.stderr.on('data', look);
        void ended.then((code) => reject(new Error(`${line} ended (${code}) before printing ${pattern}: ${stdout}${stderr}`)));
      }),
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      return ended;
    },
  };
}
