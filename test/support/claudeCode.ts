/**
 * Claude Code 2.1.197 as the reference the recorders hold agentloop to (test/cli/sdk/record.ts,
 * test/permissions/record*.ts, test/tools/fileAccess/record.ts, …): where its binary is, the environment it runs offline in
 * against the local Messages API server (DESIGN.md §7), and one run of it as a process. One copy of each, so a new
 * recorder is its cases and nothing else.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMessagesServer, type MessagesServer } from './messagesServer.js';

/** The binary `npm ci --prefix bench/peers` installs (a native executable; not cli.js), or $CLAUDE_CODE. */
export const CLAUDE_CODE_BIN =
  process.env.CLAUDE_CODE ??
  fileURLToPath(new URL('../../bench/peers/node_modules/@anthropic-ai/claude-code/bin/claude.exe', import.meta.url));

/** The binary's path, or an Error saying how to get it (for a recorder's main). */
export function claudeCodeBinary(): string {
  if (!existsSync(CLAUDE_CODE_BIN)) throw new Error(`no Claude Code at ${CLAUDE_CODE_BIN}: run npm ci --prefix bench/peers, or set CLAUDE_CODE`);
  return CLAUDE_CODE_BIN;
}

/** `claude --version`'s line, e.g. "2.1.197 (Claude Code)". */
export function claudeCodeVersion(executable: string): string {
  return spawnSync(executable, ['--version'], { encoding: 'utf8' }).stdout.trim();
}

/** Claude Code's environment offline: a HOME of the recorder's own, the local server as its API, nothing sent elsewhere. */
export function claudeCodeEnv(home: string, baseUrl: string, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    ANTHROPIC_API_KEY: 'sk-ant-test-record',
    ANTHROPIC_BASE_URL: baseUrl,
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...extra,
  };
}

export interface ProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end with no stdin (or `input`), collecting what it prints. */
export function runToEnd(program: string, args: readonly string[], options: { cwd: string; env: Record<string, string>; input?: string }): Promise<ProcessRun> {
  const child = spawn(program, args, { cwd: options.cwd, env: options.env, stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  if (options.input !== undefined) child.stdin?.end(options.input);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A working folder (its real path, as Claude Code prints it) and a HOME of their own for one run, and their removal. */
export function claudeCodeScratch(prefix: string): { cwd: string; home: string; remove(): void } {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), `${prefix}-`)));
  const home = mkdtempSync(join(tmpdir(), `${prefix}-home-`));
  return {
    cwd,
    home,
    remove: () => {
      rmSync(cwd, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** One case of a recorder, run against a local Messages API server of its own. */
export interface CaseRun {
  executable: string;
  server: MessagesServer;
}

/**
 * A recorder's loop: each case run by `record` with Claude Code's binary and a fresh local server (closed after it),
 * its outcome printed, then the fixture written: `{ recordedWith, ...extra, command, cases }` keyed by case name.
 */
export async function recordCases<C extends { name: string }, O>(spec: {
  fixture: URL;
  command: string;
  cases: readonly C[];
  extra?: Record<string, unknown>;
  record(c: C, run: CaseRun): Promise<O>;
}): Promise<void> {
  const executable = claudeCodeBinary();
  const cases: Record<string, O> = {};
  for (const c of spec.cases) {
    const server = await startMessagesServer();
    try {
      cases[c.name] = await spec.record(c, { executable, server });
    } finally {
      await server.close();
    }
    process.stdout.write(`${c.name}: ${JSON.stringify(cases[c.name])}\n`);
  }
  const fixture = { recordedWith: claudeCodeVersion(executable), ...spec.extra, command: spec.command, cases };
  writeFileSync(spec.fixture, `${JSON.stringify(fixture, null, 1)}\n`);
}
