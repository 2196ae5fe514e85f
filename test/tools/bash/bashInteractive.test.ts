import { beforeAll, describe, expect, it } from 'vitest';
import { findInteractive as findInScript } from '../../../src/tools/bash/judge/interactive.js';
import { loadShellParser, type TsParser } from '../../../src/tools/bash/judge/shell/load.js';
import { parseScript } from '../../../src/tools/bash/judge/shell/parse.js';

let parser: TsParser;
beforeAll(async () => {
  parser = await loadShellParser();
});
const findInteractive = (command: string) => findInScript(parseScript(parser, command));

describe('findInteractive', () => {
  it.each([
    ['vi', 'vi'],
    ['vim file.txt', 'vim'],
    ['nvim', 'nvim'],
    ['cd src && vim index.ts', 'vim'],
    ['/usr/bin/vim x', 'vim'],
    ['EDITOR=x vimdiff a b', 'vimdiff'],
    ['echo $(vi)', 'vi'],
    ['view README.md', 'view'],
  ])('%j starts %s interactively', (command, name) => {
    expect(findInteractive(command)).toBe(name);
  });

  it.each([
    'vim -es -c "%s/a/b/g" -c wq file',
    "vim -c 'wq' file",
    'vim +wq file',
    'vim --version',
    'vi -e file < script',
    'ex -c q',
    'echo vim',
    'grep vim notes.txt',
    'less README.md',
    'git commit -m "edit in vim"',
    'nano',
  ])('%j is allowed', (command) => {
    expect(findInteractive(command)).toBeNull();
  });
});
