import { beforeAll, describe, expect, it } from 'vitest';
import { isReadOnlyScript } from '../../src/tools/bash/judge/readOnly.js';
import { loadShellParser, type TsParser } from '../../src/tools/bash/judge/shell/load.js';
import { parseScript } from '../../src/tools/bash/judge/shell/parse.js';

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
