/**
 * The README's "Run Agent SDK programs on agentloop" example, run as a user runs it: its code block, copied as it
 * stands into `example.mjs` of a project whose node_modules hold agentloop (this checkout, built), the Agent SDK and
 * zod, started with node against the local Messages API server. The server plays the model: it calls the in-process
 * tool, then `ls`, then answers; the example prints the result.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { lastToolResults, resultText } from '../../support/agentServer.js';
import type { MessagesServer, RequestBody } from '../../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../../support/project.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const HEADING = '## Run Agent SDK programs on agentloop';

let project: CliProject;
let server: MessagesServer;
cliProjectPerTest('readme-sdk', (p) => { project = p; server = p.server; }, { noViolations: true, files: { 'a.txt': 'a' } });

/** The section's first ts code block, as the README shows it. */
function readmeSdkExample(readme: string): string {
  const section = readme.slice(readme.indexOf(HEADING));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (readme.indexOf(HEADING) === -1 || !block) throw new Error(`README.md has no ts example under "${HEADING}"`);
  return block[1] as string;
}

/** node_modules of the user's project: agentloop is this checkout, as `npm install agentloop` would place it. */
function installInto(dir: string): void {
  const modules = join(dir, 'node_modules');
  for (const [name, target] of [
    ['agentloop', ROOT],
    ['@anthropic-ai/claude-agent-sdk', join(ROOT, 'node_modules/@anthropic-ai/claude-agent-sdk')],
    ['zod', join(ROOT, 'node_modules/zod')],
  ] as const) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(target, join(modules, name));
  }
}

const toolUse = (id: string, name: string, input: Record<string, unknown>) => ({
  content: [{ type: 'tool_use' as const, id, name, input }],
  stop_reason: 'tool_use' as const,
});

it("runs the README's Agent SDK example with agentloop as its engine: the in-process tool, ls, the answer printed", async () => {
  installInto(project.dir);
  writeFileSync(join(project.dir, 'example.mjs'), readmeSdkExample(readFileSync(join(ROOT, 'README.md'), 'utf8')));
  server.enqueue(
    toolUse('toolu_add', 'mcp__calc__add', { a: 2, b: 3 }),
    toolUse('toolu_ls', 'bash', { command: 'ls' }),
    { content: [{ type: 'text', text: '5. The files: a.txt, example.mjs, node_modules.' }], stop_reason: 'end_turn' },
  );

  const { stdout } = await promisify(execFile)(process.execPath, ['example.mjs'], { cwd: project.dir, env: project.env, timeout: 60_000 });

  expect(stdout).toBe('5. The files: a.txt, example.mjs, node_modules.\n');
  const bodies = server.requests.map((r) => r.body as RequestBody);
  expect(bodies).toHaveLength(3);
  expect(bodies[0]?.tools?.map((t) => ('name' in t ? t.name : ''))).toEqual(expect.arrayContaining(['bash', 'mcp__calc__add']));
  const system = Array.isArray(bodies[0]?.system) ? bodies[0].system.map((b) => b.text).join('') : String(bodies[0]?.system);
  expect(system.endsWith('Answer briefly.')).toBe(true);
  const added = lastToolResults(bodies[1]!)[0]!;
  expect([added.tool_use_id, added.is_error ?? false, resultText(added)]).toEqual(['toolu_add', false, '5']);
  const listed = lastToolResults(bodies[2]!)[0]!;
  expect(listed.tool_use_id).toBe('toolu_ls');
  expect(resultText(listed).split('\n')).toEqual(expect.arrayContaining(['a.txt', 'example.mjs', 'node_modules']));
});
