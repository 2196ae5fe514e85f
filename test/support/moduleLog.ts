import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'vitest';
import { CLI } from './cli.js';

/**
 * Writes into `dir` a module hook that appends the URL of every module a process resolves to the file $MODULE_LOG
 * (it runs on the loader's thread, so it appends to a file); a process loads it with `--import dir/register.mjs`.
 */
export function writeModuleLogHook(dir: string): void {
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.MODULE_LOG, result.url + '\\n');
  return result;
}
`,
  );
  writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n`);
}

/** A CLI run with the module hook: where, with what, and (optionally) the log's path before the run starts. */
export interface LoggedRun {
  cwd: string;
  env: NodeJS.ProcessEnv;
  args: string[];
  onLog?: (log: string) => void;
}

/**
 * The URLs of the files of dist/ a CLI run (`node --import HOOK CLI ...args`) loaded; it must exit 0. Not spawnSync:
 * a test's Messages API server runs in the test's process.
 */
export async function distFilesLoaded(run: LoggedRun): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'agentloop-modules-'));
  try {
    writeModuleLogHook(dir);
    const log = join(dir, 'modules.log');
    writeFileSync(log, '');
    run.onLog?.(log);
    const child = spawn(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, CLI, ...run.args], {
      cwd: run.cwd,
      env: { ...run.env, MODULE_LOG: log },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    expect(await new Promise<number | null>((resolve) => child.on('close', resolve))).toBe(0);
    const files = [...new Set(readFileSync(log, 'utf8').split('\n'))].filter((url) => url.startsWith('file:') && url.includes('/dist/'));
    expect(files.length).toBeGreaterThan(1);
    return files;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The code of those files, joined. */
export async function distCodeLoaded(run: LoggedRun): Promise<string> {
  return (await distFilesLoaded(run)).map((url) => readFileSync(new URL(url), 'utf8')).join('\n');
}
