/**
 * A library run (runAgent with defaultTools and `permissions`) given its working directory through a link, as a program
 * and `agentloop worker --cwd` pass it (unresolved; the CLI's own is the process's, already real): a call naming its
 * path by the real folder is judged as one naming it through the link. `Read(secret/**)` denies a Read of the real
 * secret/key.txt and leaves it out of a Grep of the real folder; `Edit(*.txt)` allows a Write of a.txt named either way;
 * a link in the folder that leads out stays not allowed. On the old code the real path passed the deny rule by (and the
 * allow rule allowed nothing named through the link). As root and as nobody, the run in a process of its own.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.js';
import { runAs, testUsers, type TestUser } from '../support/users.js';
import { openScratchDir } from '../support/scratch.js';

const LIBRARY = join(dirname(CLI), '..', 'index.js');

/** One call by a scripted model in a library run; prints the call's tool_result as JSON. */
const CHILD = `
const [library, cwd, tool, input, permissions] = process.argv.slice(1);
const { defaultTools, reply, runAgent, scriptedModel } = await import(library);
const steps = [reply.toolUse([{ id: 'toolu_1', name: tool, input: JSON.parse(input) }]), reply.text('done')];
const tools = defaultTools({ cwd, tools: ['Read', 'Write', 'Edit', 'Glob', 'Grep'] });
const run = await runAgent('go', { model: 'm', modelCall: scriptedModel(steps).call, tools, cwd, permissions: JSON.parse(permissions) });
const blocks = run.context.messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content));
process.stdout.write(JSON.stringify(blocks.find((b) => b.type === 'tool_result')));
`;

let scratch: string;
let cleanup: () => void;
beforeAll(() => void ({ dir: scratch, cleanup } = openScratchDir('linked-cwd-')));
afterAll(() => cleanup());

/** A project (notes.txt, secret/key.txt, out.txt: a link to a file outside it) and a link to it, for `user`. */
function project(user: TestUser): { real: string; link: string } {
  const root = mkdtempSync(join(scratch, 'p-'));
  const real = join(root, 'project');
  mkdirSync(join(real, 'secret'), { recursive: true });
  writeFileSync(join(real, 'notes.txt'), 'hush here\n');
  writeFileSync(join(real, 'secret', 'key.txt'), 'hush secret\n');
  writeFileSync(join(root, 'outside.txt'), 'outside\n');
  symlinkSync(join(root, 'outside.txt'), join(real, 'out.txt'));
  const link = join(root, 'linked');
  symlinkSync(real, link);
  chmodSync(root, 0o755);
  if (user.owner) execFileSync('chown', ['-R', '-h', user.owner, root]);
  return { real, link };
}

async function call(user: TestUser, cwd: string, tool: string, input: Record<string, unknown>, permissions: Record<string, unknown>) {
  const env = { PATH: process.env.PATH, HOME: user.owner ? '/nonexistent' : (process.env.HOME ?? '/root') };
  const run = await runAs(user, process.execPath, ['--input-type=module', '-e', CHILD, LIBRARY, cwd, tool, JSON.stringify(input), JSON.stringify(permissions)], { cwd: '/', env });
  expect(run.code, run.stderr).toBe(0);
  const block = JSON.parse(run.stdout) as { content: unknown; is_error?: boolean };
  return { text: typeof block.content === 'string' ? block.content : JSON.stringify(block.content), isError: block.is_error === true };
}

const DENY_SECRET = { mode: 'default', allow: ['Read', 'Grep'], deny: ['Read(secret/**)'] };
const ALLOW_TXT = { mode: 'default', allow: ['Edit(*.txt)'] };

describe.each(testUsers())('a library run from a link to its project, as $name', (user) => {
  it.skipIf(user.skip !== undefined)('Read(secret/**) denies a Read of secret/key.txt named by the real folder, or through the link', async () => {
    const { real, link } = project(user);
    for (const folder of [real, link]) {
      const got = await call(user, link, 'Read', { file_path: join(folder, 'secret', 'key.txt') }, DENY_SECRET);
      expect(got, folder).toEqual({ text: expect.stringContaining('denied by rule Read(secret/**)'), isError: true });
    }
  });

  it.skipIf(user.skip !== undefined)('Read(secret/**) leaves secret/ out of a Grep of the real folder, and of the link', async () => {
    const { real, link } = project(user);
    for (const folder of [real, link]) {
      const got = await call(user, link, 'Grep', { pattern: 'hush', path: folder, output_mode: 'content' }, DENY_SECRET);
      expect(got.text, folder).toContain('notes.txt');
      expect(got.text, folder).not.toContain('hush secret');
    }
  });

  it.skipIf(user.skip !== undefined)('Edit(*.txt) allows a Write of a.txt named either way, not of out.txt, a link that leads out', async () => {
    const { real, link } = project(user);
    for (const [folder, name] of [[real, 'a.txt'], [link, 'b.txt']] as const) {
      const got = await call(user, link, 'Write', { file_path: join(folder, name), content: 'a\n' }, ALLOW_TXT);
      expect({ ...got, made: existsSync(join(real, name)) }, folder).toMatchObject({ isError: false, made: true });
    }
    const out = await call(user, link, 'Write', { file_path: join(link, 'out.txt'), content: 'changed\n' }, ALLOW_TXT);
    expect(out.isError).toBe(true);
    expect(execFileSync('cat', [join(dirname(real), 'outside.txt')], { encoding: 'utf8' })).toBe('outside\n');
  });
});
