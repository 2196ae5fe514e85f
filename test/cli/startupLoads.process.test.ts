/**
 * What a `-p` run loads before its first request that it never calls (issue 27's 9a: bench/engine.ts). The CLI as a
 * process against the local Messages API server, as test/cli/mcpLoads.process.test.ts runs it:
 * - a command through the bash tool, without execa (src/tools/bash/run/process.ts spawns with child_process: execa's
 *   import was 25 ms of CPU between the first reply and the first command);
 * - of the Anthropic SDK, the base client and the Messages resource only (src/anthropic/client.ts), not the SDK's
 *   other resources (beta, organization, files...: over a megabyte of the bundle). Which files of dist/ it loaded come
 *   from a module hook (test/support/moduleLog.ts); a file holds a module's code when esbuild's `// node_modules/...`
 *   comment is in it.
 * - none of the file tools' packages (minimatch, ignore, diff: src/tools/fileAccess/packages.ts requires each at its
 *   first use; they were ~100 kB of the 1.2 MB compiled before the first request), and under 1.15 MB of dist/ in all
 *   (1.09 MB with them off the path). A run that uses them still works from the bundle. They are required while the
 *   model thinks (tools/modelThinks.ts), not when a reply that comes at once has called a tool first.
 * - the session lock's addon by its prebuilt binary (src/transcript/lock.ts), without the package's resolver packages
 *   (require-addon and bare-*): the lock is still the kernel's (/proc/locks lists it while the run holds it).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.js';
import { distCodeLoaded } from '../support/moduleLog.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';

let project: CliProject;
cliProjectPerTest('startup-loads', (p) => (project = p), { noViolations: true });

const answer = () => project.server.enqueue({ content: [{ type: 'text', text: 'hello' }], stop_reason: 'end_turn' });

describe('a -p run that runs a command loads no execa', () => {
  it('the bash tool spawns with child_process itself', async () => {
    // The tool by the name the run gives it.
    project.server.enqueue((body) => ({
      content: [{ type: 'tool_use', id: 'toolu_loads_1', name: (body.tools?.[0] as { name: string }).name, input: { command: 'ls' } }],
      stop_reason: 'tool_use',
    }));
    answer();
    const code = await distCodeLoaded({ cwd: project.dir, env: project.env, args: ['-p', 'hi'] });
    expect(project.server.requests).toHaveLength(2);
    expect(JSON.stringify(project.server.requests[1]?.body?.messages.at(-1))).toContain('tool_result');
    expect(JSON.stringify(project.server.requests[1]?.body?.messages.at(-1))).not.toContain('"is_error":true');
    expect(code).toContain('runInProcessGroup');
    expect(code).not.toContain('node_modules/execa/');
  });
});

describe('a -p run loads of the Anthropic SDK only what it calls', () => {
  it('the Messages resource (and its batches) and the base client, none of the other resources', async () => {
    answer();
    const code = await distCodeLoaded({ cwd: project.dir, env: project.env, args: ['-p', 'hi'] });
    expect(code).toContain('node_modules/@anthropic-ai/sdk/client.mjs');
    expect(code).toContain('node_modules/@anthropic-ai/sdk/resources/messages/messages.mjs');
    // Each resource of the SDK is a class over APIResource (142 of them in the whole client, beta's and models' among them).
    const resources = [...code.matchAll(/(?:class (\w+)|var (\w+) = class) extends APIResource\b/g)].map((m) => (m[1] ?? m[2] ?? '').replace(/\d+$/, ''));
    expect(resources.sort()).toEqual(['Batches', 'Messages']);
  });
});

describe('a -p run loads nothing of undici', () => {
  it("its requests go through node:http and the SDK's headers are FetchHeaders (src/anthropic/headers.ts): a command run, the answer sent back", async () => {
    project.server.enqueue((body) => ({
      content: [{ type: 'tool_use', id: 'toolu_undici_1', name: (body.tools?.[0] as { name: string }).name, input: { command: 'echo seen' } }],
      stop_reason: 'tool_use',
    }));
    answer();
    const loaded = await preloadedRun("process.on('exit', () => process.stderr.write('SEEN ' + JSON.stringify(process.moduleLoadList.filter((m) => m.includes('undici'))) + '\\n'));\n", ['-p', 'hi', '--allowedTools', 'Bash']);
    expect(loaded).toEqual([]);
    expect(project.server.requests).toHaveLength(2);
    expect(JSON.stringify(project.server.requests[1]?.body?.messages.at(-1))).toContain('seen');
  });
});

const PACKAGES = ['minimatch', 'brace-expansion', 'ignore', 'diff'];
const packagesIn = (code: string) => PACKAGES.filter((name) => code.includes(`node_modules/${name}/`));

describe("a -p run loads the file tools' packages only when a file tool needs them", () => {
  it('a run without a file tool loads none of them, and less than 1.15 MB of dist/ in all', async () => {
    answer();
    const code = await distCodeLoaded({ cwd: project.dir, env: project.env, args: ['-p', 'hi'] });
    expect(packagesIn(code)).toEqual([]);
    expect(code).toContain('node_modules/@anthropic-ai/sdk/client.mjs');
    expect(Buffer.byteLength(code)).toBeLessThan(1_150_000);
  });

  it('Glob (minimatch) and Grep over an ignore file (ignore) answer from the bundle as before', async () => {
    mkdirSync(join(project.dir, 'sub', 'deep'), { recursive: true });
    writeFileSync(join(project.dir, 'sub', 'deep', 'a.txt'), 'needle\n');
    writeFileSync(join(project.dir, 'sub', 'hidden.txt'), 'needle\n');
    writeFileSync(join(project.dir, '.ignore'), 'hidden.txt\n');
    project.server.enqueue({
      content: [
        { type: 'tool_use', id: 'toolu_glob_1', name: 'Glob', input: { pattern: 'sub/**/*.txt' } },
        { type: 'tool_use', id: 'toolu_grep_1', name: 'Grep', input: { pattern: 'needle', output_mode: 'files_with_matches' } },
      ],
      stop_reason: 'tool_use',
    });
    answer();
    const code = await distCodeLoaded({ cwd: project.dir, env: project.env, args: ['-p', 'hi', '--allowedTools', 'Glob,Grep'] });
    expect(packagesIn(code)).toEqual([]); // required from node_modules, not bundled
    const results = JSON.stringify(project.server.requests[1]?.body?.messages.at(-1));
    expect(results).not.toContain('"is_error":true');
    expect(results).toContain('sub/deep/a.txt');
    expect(results).toContain('sub/hidden.txt'); // Glob lists it (no ignore files) ...
    expect(results.split('hidden.txt').length - 1).toBe(1); // ... Grep honours .ignore
  });
});

/**
 * What a CLI run with `args` said from a preload module (`source`, loaded with --import): the JSON after `SEEN ` on a
 * line of its stderr. The run must exit 0.
 */
async function preloadedRun(source: string, args: string[]): Promise<unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'agentloop-preloaded-'));
  try {
    const preload = join(dir, 'preload.mjs');
    writeFileSync(preload, source);
    const child = spawn(process.execPath, ['--import', pathToFileURL(preload).href, CLI, ...args], { cwd: project.dir, env: project.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await new Promise<number | null>((resolve) => child.on('close', resolve)), stderr).toBe(0);
    const line = stderr.split('\n').find((l) => l.startsWith('SEEN ')) as string;
    return JSON.parse(line.slice('SEEN '.length));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The packages of node_modules a CLI run had required at its first request (node:http's, as its client sends: anthropic/httpFetch.ts) and when it exited (Node's require cache). */
async function packagesRequired(args: string[]): Promise<{ atRequest: string[]; atExit: string[] }> {
  const seen = (await preloadedRun(
    `import { createRequire, syncBuiltinESMExports } from 'node:module';
const require = createRequire(import.meta.url);
const cache = require.cache;
const http = require('node:http');
const requestOf = http.request;
let atRequest;
http.request = function (...args) { atRequest ??= Object.keys(cache); return requestOf.apply(this, args); };
syncBuiltinESMExports();
process.on('exit', () => process.stderr.write('SEEN ' + JSON.stringify({ atRequest, atExit: Object.keys(cache) }) + '\\n'));
`,
    args,
  )) as { atRequest: string[]; atExit: string[] };
  const of = (files: string[]) => PACKAGES.filter((name) => files.some((file) => file.includes(`/node_modules/${name}/`))).sort();
  return { atRequest: of(seen.atRequest), atExit: of(seen.atExit) };
}

describe("the file tools' packages load while the model thinks", () => {
  it('none before the first request; all while a first reply takes 600 ms, with no file tool called', async () => {
    project.server.enqueue(() => new Promise((resolve) => setTimeout(() => resolve({ content: [{ type: 'text', text: 'hello' }], stop_reason: 'end_turn' }), 600)));
    project.server.enqueue({ content: [{ type: "text", text: "x" }], stop_reason: "end_turn" });
    const required = await packagesRequired(['-p', 'hi']);
    expect(required.atRequest).toEqual([]);
    expect(required.atExit).toEqual([...PACKAGES].sort());
  });
});

/** A node process that locks a session through dist/transcript/lock.js, prints what it sees, and releases it. */
function lockingProcess(transcript: string): Promise<{ modules: string[]; locksBefore: string; lockedInode: number }> {
  const lockModule = pathToFileURL(createRequire(import.meta.url).resolve('../../dist/transcript/lock.js')).href;
  const script = `
import { createRequire } from 'node:module';
import { readFileSync, statSync } from 'node:fs';
const { lockSession, lockPathOf } = await import(${JSON.stringify(lockModule)});
const lock = lockSession(${JSON.stringify(transcript)});
const out = { modules: Object.keys(createRequire(import.meta.url).cache), locksBefore: readFileSync('/proc/locks', 'utf8'), lockedInode: statSync(lockPathOf(${JSON.stringify(transcript)})).ino };
lock.release();
process.stdout.write(JSON.stringify(out));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(stdout) as Awaited<ReturnType<typeof lockingProcess>>) : reject(new Error(`exit ${code}`)))),
  );
}

describe("the session lock's addon", () => {
  it("loads by its prebuilt binary, without the package's resolvers, and the lock is the kernel's", async () => {
    const home = mkdtempSync(join(tmpdir(), 'agentloop-startup-lock-'));
    try {
      const seen = await lockingProcess(join(home, 'sessions', 's1.jsonl'));
      const packages = seen.modules.filter((m) => m.includes('/node_modules/')).map((m) => /node_modules\/((@[^/]+\/)?[^/]+)/.exec(m)?.[1]);
      expect(packages).toContain('fs-native-extensions');
      expect(packages.filter((name) => /^(require-addon|bare-)/.test(name ?? ''))).toEqual([]);
      // An OFD lock ("OFDLCK") on the lock file's inode while the process held it.
      const line = seen.locksBefore.split('\n').find((l) => l.split(/\s+/).some((field) => field.endsWith(`:${seen.lockedInode}`)));
      expect(line).toMatch(/OFDLCK/);
      expect(statSync(home).isDirectory()).toBe(true);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
