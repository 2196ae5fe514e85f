/**
 * A dotfiles repository (issue 36 item 3): the home's start-up files and the other names of protect.ts are links into
 * the working directory (a repository of them, as GNU stow or a bare `ln -s` makes). A sandboxed command, which may
 * write the working directory, must not write through them into the user's real start-up files: each target is kept
 * read-only by name, a missing one cannot be made, links on the way (`~/.local` to a folder of the repository) and one
 * level inside a protected folder (`~/.config/nvim`) count; the rest of the repository stays writable. As root and as
 * nobody (test/support/users.ts), through the bash tool's sandbox in a process of the user's own; and the same rule
 * for the file tools, protectedWriteReason, in a process of the user's own too.
 */
import { mkdirSync, mkdtempSync, readFileSync, existsSync, rmSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { bashToolAs, handTo } from '../../support/bashAs.js';
import { runAs, testUsers } from '../../support/users.js';
import { context } from './bashHelpers.js';

let base: string;
let home: string;
let repo: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'agentloop-dotfiles-'));
  chmodSync(base, 0o755);
  home = join(base, 'home');
  repo = join(home, 'dotfiles');
  mkdirSync(join(repo, 'nvim'), { recursive: true });
  mkdirSync(join(repo, 'local'));
  mkdirSync(join(home, '.config'));
  writeFileSync(join(repo, 'bashrc'), 'alias ll="ls -l"\n');
  writeFileSync(join(repo, 'nvim', 'init.lua'), '-- mine\n');
  symlinkSync('dotfiles/bashrc', join(home, '.bashrc'));
  symlinkSync(join(repo, 'profile'), join(home, '.profile')); // its target is missing
  symlinkSync('../dotfiles/nvim', join(home, '.config', 'nvim'));
  symlinkSync('dotfiles/local', join(home, '.local'));
  symlinkSync('dotfiles/gitconfig', join(home, '.gitconfig'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const ATTACK = [
  'exec 2>/dev/null',
  'echo evil >> bashrc 2>/dev/null && echo "wrote bashrc"',
  'echo evil > profile 2>/dev/null && echo "made profile"',
  'echo evil >> nvim/init.lua 2>/dev/null && echo "wrote nvim/init.lua"',
  'mkdir -p local/bin 2>/dev/null && echo evil > local/bin/ls 2>/dev/null && echo "planted local/bin/ls"',
  'echo evil > gitconfig 2>/dev/null && echo "made gitconfig"',
  'rm -f bashrc 2>/dev/null; [ -e bashrc ] || echo "removed bashrc"',
  'mv nvim nvim-away 2>/dev/null && echo "moved nvim"',
  'echo task > notes.txt && echo task-done',
].join('\n');

describe.each(testUsers())('as $name', { timeout: 120_000 }, (user) => {
  beforeEach((ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    handTo(user, base);
  });

  it("a sandboxed command in the repository writes none of the home's start-up files through their links", async () => {
    const tool = bashToolAs(user, { sandbox: true, env: { PATH: process.env.PATH, HOME: home } });
    try {
      const result = await tool.run({ command: ATTACK }, context(repo));
      expect(result.content.split('\n').filter((line) => !line.startsWith('['))).toEqual(['task-done']);
    } finally {
      tool.close();
    }
    expect(readFileSync(join(repo, 'bashrc'), 'utf8')).toBe('alias ll="ls -l"\n');
    expect(readFileSync(join(repo, 'nvim', 'init.lua'), 'utf8')).toBe('-- mine\n');
    expect(['profile', 'gitconfig', 'local/bin', 'nvim-away'].filter((name) => existsSync(join(repo, name)))).toEqual([]);
    expect(readFileSync(join(repo, 'notes.txt'), 'utf8')).toBe('task\n');
  });
});

const PROTECT = JSON.stringify(fileURLToPath(new URL('../../../dist/tools/bash/run/protect.js', import.meta.url)));

describe.each(testUsers())('protectedWriteReason as $name', { timeout: 60_000 }, (user) => {
  beforeEach((ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    handTo(user, base);
  });

  it("refuses what the home's protected names lead to in the repository, and nothing else of it", async () => {
    const paths = ['bashrc', 'profile', 'nvim/init.lua', 'local/bin/ls', 'gitconfig', 'notes.txt', 'nvim-away', 'README.md'];
    const program = `import { protectedWriteReason } from ${PROTECT};
      const [cwd, home, ...paths] = process.argv.slice(1);
      console.log(JSON.stringify(paths.filter((p) => protectedWriteReason(p, { cwd, home }) !== null)));`;
    const run = await runAs(user, process.execPath, ['--input-type=module', '-e', program, repo, home, ...paths], { cwd: '/', env: { PATH: process.env.PATH } });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual(['bashrc', 'profile', 'nvim/init.lua', 'local/bin/ls', 'gitconfig']);
  });
});
