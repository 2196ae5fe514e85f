/**
 * The package as people install it: `npm pack`, the tarball installed into a new project that has only TypeScript
 * (no @types/node), and the library's published types checked there with `skipLibCheck: false`. The tarball holds
 * the LICENSE, and its source maps carry their sources (the .ts files are not in the package).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string; license: string };
const typescriptVersion = (JSON.parse(readFileSync(join(root, 'node_modules/typescript/package.json'), 'utf8')) as { version: string }).version;

/** A consumer's code: the library's main entry points, used as the README shows them. */
const CONSUMER = `
import { defineTool, reply, runAgent, s, scriptedModel, type RunEvent, type RunResult } from '${pkg.name}';

const echo = defineTool({
  name: 'echo',
  description: 'Echo the text back.',
  input: s.object({ text: s.string() }),
  run: async ({ text }) => ({ content: text, isError: false }),
});
const model = scriptedModel([reply.toolUse([{ id: 'toolu_1', name: 'echo', input: { text: 'hi' } }]), reply.text('done')]);
const events: RunEvent[] = [];
const run: RunResult = await runAgent('say hi', { model: 'claude-sonnet-4-5', modelCall: model.call, tools: [echo], onEvent: (e) => events.push(e) });
export const summary: string = \`\${run.context.exitReason} \${run.text} \${run.context.costUsd}\`;
`;
/** Node's types used by name: the one error the check must report, which shows they are not there. */
const CONTROL = 'export type Env = NodeJS.ProcessEnv;\n';

let dir: string;
let packed: { files: { path: string }[] };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-dts-'));
  // dist/ is built by the tests' global setup, as `npm run build` builds it: pack it as it is.
  const pack = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: root, maxBuffer: 1 << 24 });
  packed = (JSON.parse(pack.stdout) as (typeof packed)[])[0] as typeof packed;
  const consumer = join(dir, 'consumer');
  await exec('mkdir', [consumer]);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, noEmit: true },
      include: ['main.ts', 'control.ts'],
    }),
  );
  writeFileSync(join(consumer, 'main.ts'), CONSUMER);
  writeFileSync(join(consumer, 'control.ts'), CONTROL);
  const tarball = join(dir, `${pkg.name}-${pkg.version}.tgz`);
  await exec('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', `typescript@${typescriptVersion}`, tarball], {
    cwd: consumer,
  });
}, 240_000);
// A consumer's node_modules: removing it took over 30 s in a clean clone at load 14.
afterAll(() => rmSync(dir, { recursive: true, force: true }), 120_000);

describe('the published package', () => {
  it('type-checks in a project with only TypeScript: no @types/node, skipLibCheck false', async () => {
    const consumer = join(dir, 'consumer');
    expect(existsSync(join(consumer, 'node_modules/@types/node'))).toBe(false);
    expect(existsSync(join(consumer, 'node_modules', pkg.name, 'dist/index.d.ts'))).toBe(true);
    const check = await exec(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.'], { cwd: consumer }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    const errors = check.split('\n').filter((line) => /error TS\d+/.test(line));
    // Only the control file fails (no Node types here); nothing in the library's declarations or its use does.
    expect(errors).toEqual([expect.stringMatching(/^control\.ts\(1,\d+\): error TS2503: Cannot find namespace 'NodeJS'/)]);
  }, 120_000);

  it(`holds the LICENSE (${pkg.license}, agentloop contributors)`, () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths).toContain('LICENSE');
    const license = readFileSync(join(dir, 'consumer/node_modules', pkg.name, 'LICENSE'), 'utf8');
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) 2026 agentloop contributors\n/);
  });

  it('every source map in it embeds the sources it maps (the .ts files are not shipped)', () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths.some((p) => p.endsWith('.ts') && !p.endsWith('.d.ts'))).toBe(false);
    const maps = paths.filter((p) => p.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(10);
    for (const path of maps) {
      const map = JSON.parse(readFileSync(join(dir, 'consumer/node_modules', pkg.name, path), 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
      expect(map.sourcesContent?.length, path).toBe(map.sources.length);
      for (const content of map.sourcesContent ?? []) expect(typeof content === 'string' && content.length > 0, path).toBe(true);
    }
    // e.g. the price table's map carries its text
    const pricing = JSON.parse(readFileSync(join(dir, 'consumer/node_modules', pkg.name, 'dist/core/pricing.js.map'), 'utf8')) as { sourcesContent: string[] };
    expect(pricing.sourcesContent[0]).toBe(readFileSync(join(root, 'src/core/pricing.ts'), 'utf8'));
  });
});
