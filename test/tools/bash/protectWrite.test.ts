/**
 * protectedWriteReason (tools/bash/run/protect.ts): the sandbox's list of files that run later, applied to one path for
 * the tools that write in the agent's own process (Write, Edit). A name of the list in the working directory or the
 * home is refused as given, through a link on the way, as its real path, and where a protected name of the home links
 * to (a dotfiles repository); anything else may be written.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { protectedWriteReason, realPathOf } from '../../../src/tools/bash/run/protect.js';

let base: string;
let home: string;
let cwd: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'agentloop-protect-'));
  home = join(base, 'home');
  cwd = join(home, 'project');
  mkdirSync(join(cwd, '.git'), { recursive: true });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const reason = (path: string, allow?: string[]) => protectedWriteReason(path, { cwd, home, ...(allow ? { allow } : {}) });

describe('protectedWriteReason', () => {
  it('refuses the names of the list in the working directory and the home, as given', () => {
    for (const path of ['.git/hooks/pre-commit', '.git/config', '.vscode/tasks.json', join(cwd, '.idea/x.xml'), '.git/hooks']) {
      expect(reason(path), path).toMatch(/is protected/);
    }
    for (const path of ['.bashrc', '.profile', '.ssh/authorized_keys', '.config/autostart/x.desktop', '.local/bin/ls', 'bin/git', '.git/hooks/x']) {
      expect(reason(join(home, path)), path).toMatch(/is protected/);
    }
    expect(reason('../.zshrc')).toMatch(/\.zshrc in .*home runs later/);
  });

  it('lets everything else be written: the task\'s files, the same names deeper or elsewhere', () => {
    for (const path of ['src/a.ts', 'package.json', '.git/HEAD', '.gitignore', '.bashrc', 'docs/.profile', join(base, 'other/.bashrc'), join(home, '.local/share/x')]) {
      expect(reason(path), path).toBeNull();
    }
  });

  it('follows links: on the way, at the end (also dangling), and from a protected name of the home', () => {
    symlinkSync('.git', join(cwd, 'g'));
    expect(reason('g/hooks/pre-commit')).toMatch(/is protected/);
    symlinkSync(join(home, '.bashrc'), join(cwd, 'rc'));
    expect(reason('rc')).toMatch(/is protected/); // the home's .bashrc does not exist yet
    mkdirSync(join(cwd, 'dotfiles'));
    writeFileSync(join(cwd, 'dotfiles/bashrc'), 'alias ll="ls -l"\n');
    symlinkSync(join(cwd, 'dotfiles/bashrc'), join(home, '.bashrc'));
    symlinkSync('project/dotfiles/ssh', join(home, '.ssh'));
    expect(reason('dotfiles/bashrc')).toMatch(/where .*\.bashrc leads/);
    expect(reason('dotfiles/ssh/authorized_keys')).toMatch(/where .*\.ssh leads/);
    expect(reason('dotfiles/vimrc')).toBeNull();
  });

  it('would not replace a folder that holds a protected name, and lets the user allow a name', () => {
    rmSync(join(cwd, '.git'), { recursive: true });
    expect(reason('.git')).toMatch(/is protected/);
    expect(reason('.git/config', ['.git'])).toBeNull();
    expect(reason(join(home, '.bashrc'), ['.bashrc'])).toBeNull();
  });

  it('gives the real path of a path that does not exist yet', () => {
    symlinkSync(cwd, join(base, 'link'));
    expect(realPathOf(join(base, 'link/new/file'))).toBe(join(cwd, 'new/file'));
    symlinkSync('nowhere/x', join(cwd, 'dangling'));
    expect(realPathOf(join(cwd, 'dangling'))).toBe(join(cwd, 'nowhere/x'));
  });
});
