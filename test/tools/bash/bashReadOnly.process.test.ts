/**
 * The read-only judgement (judge/readOnly.ts): what it lets run without asking (the bash tool's isReadOnly, which the gate asks: permissions/decide.ts) and beside other
 * tools. Each line of the two tables is judged; then every line it calls read-only is run through the real tool
 * (contained, the default way), as root and again as nobody (test/support/bashAs.ts), in a folder holding what the lines
 * name (a git repository with two commits and a stale index), which must be exactly as it was afterwards, .git and
 * its index included: the tool gives every command GIT_OPTIONAL_LOCKS=0.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bashToolAs, handTo } from '../../support/bashAs.js';
import { testUsers, type TestUser } from '../../support/users.js';
import { context, makeTempDir } from './bashHelpers.js';
import { isReadOnlyScript } from '../../../src/tools/bash/judge/readOnly.js';
import { loadShellParser, type TsParser } from '../../../src/tools/bash/judge/shell/load.js';
import { parseScript } from '../../../src/tools/bash/judge/shell/parse.js';

let parser: TsParser;
beforeAll(async () => {
  parser = await loadShellParser();
});
const isReadOnlyCommand = (command: string) => isReadOnlyScript(parseScript(parser, command));

const READ_ONLY: string[] = [
  'ls',
  'ls -la src',
  'ls *.ts',
  'cat package.json',
  'head -n 20 src/index.ts',
  'tail -n 50 log.txt',
  'wc -l src/*.ts',
  'grep -rn "TODO" src',
  "grep -c 'a|b' file",
  'rg --files',
  'rg -n "foo(bar)" src',
  'find . -name "*.ts" -type f',
  'pwd',
  'echo hello world',
  'echo "a; b && c"',
  'stat package.json',
  'file README.md',
  'which node',
  'sleep 1',
  'du -sh .',
  'git status',
  'git status --short',
  'git log --oneline -n 5',
  'git diff HEAD~1 -- src',
  'git show HEAD:package.json',
  'git --no-pager log -1',
  'git log -c',
  'git branch',
  'git branch --show-current',
  'git branch -a -v',
  'git rev-parse --abbrev-ref HEAD',
  'ls; pwd',
  'ls && cat a.txt',
  'ls || echo none',
  'cat a.txt | grep x | wc -l',
  'grep -r x . 2>/dev/null',
  'ls > /dev/null 2>&1',
  'cat < input.txt',
  'ls\npwd',
  'ls # a comment > not-a-redirect',
];

const NOT_READ_ONLY: string[] = [
  '',
  'rm file',
  'touch file',
  'mkdir x',
  'npm test',
  'ls > out.txt',
  'ls >> out.txt',
  'echo hi > file',
  'cat a 2> err.txt',
  'ls &> out.txt',
  'cat a | tee copy',
  'ls; rm -rf build',
  'ls && touch x',
  'ls | sh',
  'echo $(rm x)',
  'echo `rm x`',
  'cat <(rm x)',
  'diff <(ls) <(ls)',
  'echo $HOME',
  'cat "$FILE"',
  'ls ${DIR}',
  'FOO=1 ls',
  'GIT_EXTERNAL_DIFF=evil git diff',
  'ls &',
  'sleep 10 & rm x',
  '(ls)',
  '{ ls; }',
  'if true; then ls; fi',
  'cat <<EOF\nhi\nEOF',
  'cat <<< hi',
  'find . -delete',
  'find . -name x -exec rm {} \\;',
  'find . -execdir ls \\;',
  'find . -fprint out',
  'find *',
  'rg --pre ./evil x',
  'rg --pre=./evil x',
  'rg x *',
  'file -C -m magic',
  'file -bC',
  'git commit -m x',
  'git branch new-feature',
  'git branch -D main',
  'git branch -m old new',
  'git push',
  'git checkout main',
  'git -c core.pager=evil log',
  'git --git-dir=/x log',
  'git diff --output=out.patch',
  'git log --ext-diff',
  'git diff *',
  'git',
  './ls',
  '/bin/ls',
  '\\rm x',
  '"ls" > out',
  'sort -o out in',
  'date -s now',
  'echo "unterminated',
  'ls $(',
  'xargs rm',
  'env ls',
  'sudo ls',
  'echo x >| out',
  'ls 3> out',
  'cat a >& out',
];

describe('isReadOnlyCommand', () => {
  it.each(READ_ONLY)('read-only: %j', (command) => {
    expect(isReadOnlyCommand(command)).toBe(true);
  });

  it.each(NOT_READ_ONLY)('not read-only: %j', (command) => {
    expect(isReadOnlyCommand(command)).toBe(false);
  });
});

/** A folder of `user`'s holding the files the tables' lines name, in a git repository with two commits. */
function makeFolder(user: TestUser): { dir: string; cleanup: () => void } {
  const folder = makeTempDir('agentloop-readonly-');
  const files: Record<string, string> = {
    'package.json': '{}\n', 'src/index.ts': 'export {};\n', 'src/a.ts': '// TODO\n', 'log.txt': 'x\n', 'a.txt': 'a\n',
    file: 'x\n', 'input.txt': 'in\n', 'README.md': '# r\n', 'out.txt': 'kept\n', copy: 'kept\n',
  };
  const past = new Date('2020-01-01T00:00:00Z');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(folder.dir, name, '..'), { recursive: true });
    writeFileSync(join(folder.dir, name), text);
    utimesSync(join(folder.dir, name), past, past);
  }
  handTo(user, folder.dir);
  const env = { PATH: process.env.PATH, GIT_CONFIG_GLOBAL: '/dev/null', GIT_COMMITTER_DATE: '2020-01-01T00:00:00Z', GIT_AUTHOR_DATE: '2020-01-01T00:00:00Z' };
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'safe.directory=*', ...args], { cwd: folder.dir, env });
  git('init', '-q');
  git('add', 'package.json');
  git('commit', '-qm', 'one');
  git('add', '-A');
  git('commit', '-qm', 'two');
  handTo(user, join(folder.dir, '.git'));
  // A tracked file touched since: .git/index's stat data for it is stale, so git status refreshes the index (takes
  // index.lock, rewrites it) unless GIT_OPTIONAL_LOCKS=0 (the bash tool sets it for every command).
  utimesSync(join(folder.dir, 'a.txt'), past, new Date('2021-01-01T00:00:00Z'));
  expect(git('diff-files', '--name-only').toString()).toBe('a.txt\n');
  return folder;
}

/** Every entry under `dir`: its kind, mode, size, time of change and content's hash, by path. */
function snapshot(dir: string, out: Record<string, string> = {}, prefix = ''): Record<string, string> {
  for (const name of readdirSync(join(dir, prefix)).sort()) {
    const path = join(prefix, name);
    const stats = lstatSync(join(dir, path));
    const hash = stats.isFile() ? createHash('sha256').update(readFileSync(join(dir, path))).digest('hex') : '';
    out[path] = `${stats.mode.toString(8)} ${stats.size} ${stats.mtimeMs} ${hash}`;
    if (stats.isDirectory()) snapshot(dir, out, path);
  }
  return out;
}

describe.each(testUsers())('what it calls read-only writes nothing, as $name', (user) => {
  let cleanup: (() => void) | undefined;
  afterEach(() => cleanup?.());

  it('every line of both tables it calls read-only leaves the folder exactly as it was', { timeout: 180_000 }, async (ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    const folder = makeFolder(user);
    cleanup = folder.cleanup;
    const lines = [...READ_ONLY, ...NOT_READ_ONLY].filter(isReadOnlyCommand);
    const tool = bashToolAs(user, { env: { PATH: process.env.PATH } });
    try {
      const before = snapshot(folder.dir);
      for (const command of lines) {
        await tool.run({ command }, context(folder.dir));
        expect(snapshot(folder.dir), command).toEqual(before);
      }
      expect(lines).toEqual(READ_ONLY);
    } finally {
      tool.close();
    }
  });
});
