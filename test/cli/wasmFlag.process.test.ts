/**
 * The CLI's WebAssembly: the shell grammar alone, compiled with Liftoff alone (tools/bash/judge/shell/load.ts
 * `baselineOnly`: no TurboFan tier-up of its huge functions beside the replies), the flag set for its load and put back
 * (a change of V8's flags makes V8 refuse the code cache of Node's own modules loaded meanwhile). Its requests load
 * none: they go through Node's http (anthropic/httpFetch.ts), not the global fetch and undici's WebAssembly parser.
 * Seen from a preload that notes each flag set with the global fetches made by then.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';

let project: CliProject;
cliProjectPerTest('wasm-flag', (p) => (project = p), { noViolations: true });

const PRELOAD = `import { appendFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
const v8 = createRequire(import.meta.url)('node:v8');
const set = v8.setFlagsFromString;
const fetchOf = globalThis.fetch;
let fetches = 0;
globalThis.fetch = function (...args) { fetches++; return fetchOf.apply(this, args); };
v8.setFlagsFromString = (flags) => {
  const undici = process.moduleLoadList.includes('NativeModule internal/deps/undici/undici');
  appendFileSync(process.env.FLAG_LOG, JSON.stringify({ flags, fetches, undici }) + '\\n');
  return set(flags);
};
syncBuiltinESMExports();
`;

interface FlagSet {
  flags: string;
  fetches: number;
  undici: boolean;
}

async function flagsSet(args: string[]): Promise<FlagSet[]> {
  const dir = mkdtempSync(join(tmpdir(), 'agentloop-wasm-flag-'));
  try {
    writeFileSync(join(dir, 'preload.mjs'), PRELOAD);
    const log = join(dir, 'flags.log');
    writeFileSync(log, '');
    const child = spawn(process.execPath, ['--import', pathToFileURL(join(dir, 'preload.mjs')).href, CLI, ...args], {
      cwd: project.dir,
      env: { ...project.env, FLAG_LOG: log },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    expect(await new Promise<number | null>((resolve) => child.on('close', resolve))).toBe(0);
    return readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as FlagSet);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('a -p run compiles its WebAssembly with Liftoff alone', () => {
  it('the flag set for the grammar and put back; no global fetch, so no WebAssembly HTTP parser', async () => {
    project.server.enqueue((body) => ({
      content: [{ type: 'tool_use', id: 'toolu_flag_1', name: (body.tools?.[0] as { name: string }).name, input: { command: 'for w in one; do echo "$w"; done | tr o O' } }],
      stop_reason: 'tool_use',
    }));
    project.server.enqueue({ content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' });
    const sets = await flagsSet(['-p', 'hi', '--allowedTools', 'Bash']);
    expect(project.server.requests).toHaveLength(2);
    expect(JSON.stringify(project.server.requests[1]?.body?.messages.at(-1))).toContain('One');
    expect(sets.map(({ flags, fetches }) => ({ flags, fetches }))).toEqual([
      { flags: '--liftoff-only', fetches: 0 },
      { flags: '--no-liftoff-only', fetches: 0 },
    ]);
  });
});
