/**
 * The tests by tier (vitest.config.ts, README "Tests"): a unit-tier test starts no process, no server, no browser and
 * no Restate, and the tree of test/ mirrors src/ (a test of src/x/y.ts is under test/x/).
 *
 * How a unit test that starts one fails: the unit tier's setup file (test/support/unitGuard.ts) makes
 * child_process's spawn, exec, execFile, fork (and their Sync forms) and net.Server's listen (every http, https and
 * net server, the local Messages API server's too) throw, naming the tiers; a browser and restate-server are
 * processes. This file runs in the unit tier and checks that each of them throws here.
 */
import childProcess, { exec, execFile, execFileSync, execSync, fork, spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import net from 'node:net';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TEST = join(ROOT, 'test');
const SRC = join(ROOT, 'src');

/** Folders of test/ that test no folder of src/: the house itself, the install, bench/'s code, shared helpers (and sdk/no-native, a package stub package.json names). */
const NOT_OF_SRC = new Set(['house', 'install', 'bench', 'support', 'sdk']);
/** Groups of one folder's tests: the CLI as the Agent SDK's engine (the real SDK drives it). */
const GROUPS = new Set(['cli/sdk']);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'no-native') return [];
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('a unit-tier test starts no process and no server', () => {
  const named: Array<[string, () => unknown]> = [
    ['spawn', () => spawn('true')],
    ['spawnSync', () => spawnSync('true')],
    ['exec', () => exec('true')],
    ['execSync', () => execSync('true')],
    ['execFile', () => execFile('true')],
    ['execFileSync', () => execFileSync('true')],
    ['fork', () => fork('x.js')],
    ['the default export', () => childProcess.spawn('true')],
  ];
  it.each(named)('child_process %s throws, naming the tiers', (_name, start) => {
    expect(start).toThrow(/in the unit tier: .*x\.process\.test\.ts/);
  });

  it('a server does not listen: http.createServer, net.createServer', () => {
    expect(() => createServer().listen(0, '127.0.0.1')).toThrow(/net\.Server\.listen\) in the unit tier/);
    expect(() => net.createServer().listen(0)).toThrow(/in the unit tier/);
  });

  it('no signal goes to a process group (pid 0 or below)', () => {
    expect(() => process.kill(0, 0)).toThrow(/process\.kill\(0\) in the unit tier/);
    expect(() => process.kill(-1, 0)).toThrow(/in the unit tier/);
    expect(process.kill(process.pid, 0)).toBe(true);
  });
});

describe('the tree of test/', () => {
  it('names each test file by its tier: x.test.ts (unit), x.slow, x.process, x.browser or x.restate .test.ts', () => {
    const tests = files(TEST).filter((f) => f.endsWith('.test.ts')).map((f) => relative(TEST, f));
    const odd = tests.filter((f) => /\.[a-z]+\.test\.ts$/.test(f) && !/\.(slow|process|browser|restate)\.test\.ts$/.test(f));
    expect(odd).toEqual([]);
  });

  it('mirrors src/: each folder with tests is a folder of src/ (or the house, the install, bench/, the helpers)', () => {
    const folders = new Set(files(TEST).map((f) => relative(TEST, f).split('/').slice(0, -1).join('/')).filter(Boolean));
    const stray = [...folders].filter((folder) => !NOT_OF_SRC.has(folder.split('/')[0] as string) && !GROUPS.has(folder) && !isFolder(join(SRC, folder)));
    expect(stray).toEqual([]);
  });
});

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
