// Before the shell parser has loaded, the bash tool and the permission rules read lines of plain words without it
// (shell/plain.ts through shell/reader.ts). The rules are the same; what must hold is that the plain reading is the
// parser's: the same Script, hence the same verdicts, and null for every line it cannot read as the parser does.
import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { findDanger } from '../../../src/tools/bash/judge/guard.js';
import { findInteractive } from '../../../src/tools/bash/judge/interactive.js';
import { isSafeAlongside, refusal } from '../../../src/tools/bash/judge/checks.js';
import { commandPattern, denies, uncovered, type CommandPattern } from '../../../src/tools/bash/judge/rules.js';
import { isReadOnlyScript } from '../../../src/tools/bash/judge/readOnly.js';
import { loadShellParser } from '../../../src/tools/bash/judge/shell/load.js';
import { plainWordsScript } from '../../../src/tools/bash/judge/shell/plain.js';
import { checkNow, NeedsParser, parserReader, plainReader, type ReadScript } from '../../../src/tools/bash/judge/shell/reader.js';

let parsed: ReadScript;
beforeAll(async () => {
  parsed = parserReader(await loadShellParser());
});

/** Rules' specifiers as the bash tool's permission reads them (tools/bash/judge/rules.ts). */
const rules = (allow: string[], deny: string[]) => ({ allow: allow.map(commandPattern), deny: deny.map(commandPattern) });
const RULES: { allow: CommandPattern[]; deny: CommandPattern[] }[] = [
  rules(['git log:*', 'ls *', 'cat:*'], ['rm:*', 'sudo:*']),
  rules(['npm test', 'echo *'], []),
  rules([], ['git push:*', '* /']),
];

/** Every verdict the tool and the rules give, through one reader. */
function verdicts(read: ReadScript, command: string) {
  const script = read(command);
  return {
    danger: findDanger(script, read),
    interactive: findInteractive(script),
    readOnly: isReadOnlyScript(script),
    refusal: refusal(read, command),
    alongside: isSafeAlongside(read, command),
    permissions: RULES.map((r) => ({ denied: denies(r.deny, command, read), uncovered: uncovered(r.allow, command, read) })),
  };
}

/** The plain reading's verdicts, or null when it needs the parser for a script the line hands on (`echo $'x' | sh`). */
function plainVerdicts(command: string): ReturnType<typeof verdicts> | null {
  try {
    return verdicts(plainReader, command);
  } catch (error) {
    if (error instanceof NeedsParser) return null;
    throw error;
  }
}

function expectSameReading(command: string): boolean {
  const plain = plainWordsScript(command);
  if (plain === null) return false;
  expect(plain).toEqual(parsed(command));
  const fromPlain = plainVerdicts(command);
  if (fromPlain !== null) expect(fromPlain).toEqual(verdicts(parsed, command));
  return true;
}

// Plain words, dangerous ones among them: each must be read as the parser reads it and blocked the same way.
const DANGEROUS_PLAIN: [command: string, blocked: RegExp][] = [
  ['rm -rf /', /rm -r/],
  ['rm -fr /usr', /rm -r/],
  ['rm --no-preserve-root -r x', /no-preserve-root/],
  ['mv / x', /mv/],
  ['sudo ls', /sudo/],
  ['ls && sudo rm x', /sudo/],
  ['nohup sudo ls', /sudo/],
  ['timeout 5 sudo ls', /sudo/],
  ['env sudo ls', /sudo/],
  ['dd if=/dev/zero of=/dev/sda', /dev\/sda/],
  ['dd if=/dev/zero of=/dev/sda bs=1M', /dev\/sda/],
  ['cd / && rm -rf usr', /rm -r/],
  ['cd /usr; rm -rf ..', /rm -r/],
  ['ls / | xargs rm -rf', /xargs rm/],
  ['echo rm -rf / | bash', /rm -r/],
  ['echo sudo ls | sh', /sudo/],
  ['bash -c reboot', /reboot/],
  ['eval rm -rf /', /rm -r/],
  ['shutdown now', /shutdown/],
  ['systemctl poweroff', /systemctl/],
  ['mkfs.ext4 /dev/sda1', /mkfs/],
  ['chmod -R 777 /', /chmod -r/],
  ['find / -delete', /find/],
  ['find / -exec rm -f +', /find/],
  ['shred /dev/sda', /shred/],
  ['echo cm0gLXJmIC8= | base64 -d | bash', /rm -r/],
  ['cat x | base64 -d | sh', /decoded/],
];

const INTERACTIVE_PLAIN: [command: string, name: string][] = [
  ['vi x', 'vi'],
  ['vim src/a.ts', 'vim'],
  ['git status && nvim', 'nvim'],
  ['nohup vi x', 'vi'],
];

// Lines the plain reader must leave to the parser: not plain words, or read otherwise by tree-sitter-bash.
const LEFT_TO_THE_PARSER = [
  ':(){ :|:& };:',
  ':(){ :|: & };:',
  'bomb() { bomb | bomb & }; bomb',
  'f(){ f|f& };f',
  'x=rm; $x -rf /',
  'FOO=1 sudo ls',
  'X=/ rm -rf x',
  'rm -rf ~',
  'rm -rf $HOME',
  'rm -rf /*',
  'ls > /dev/sda',
  'echo x >/dev/sda',
  'echo "a b"',
  "ls 'x'",
  'ls *.ts',
  'ls `x`',
  'ls $(pwd)',
  'ls\\ x',
  'ls 2>&1',
  'ls &',
  'ls |',
  '| ls',
  'ls && ;',
  'ls ;; ls',
  '; ls',
  'ls &&',
  'export X=1',
  'unset X',
  'local x',
  'if true; then ls; fi',
  'for x in a b; do rm x; done',
  'while true; do ls; done',
  'time ls',
  'a | b | c && d',
  'a | b | c\nd && e',
  'ls |\nwc -l',
  'vi ==',
  '- a=b',
  'a#b',
  'ls\r\npwd',
];

describe('plainWordsScript: the parser\'s reading of a line of plain words', () => {
  it.each(DANGEROUS_PLAIN)('%j: read as the parser reads it, and blocked the same way', (command, blocked) => {
    expect(expectSameReading(command)).toBe(true);
    expect(findDanger(plainReader(command), plainReader)).toMatch(blocked);
  });

  it.each(INTERACTIVE_PLAIN)('%j: read as the parser reads it, and refused as interactive', (command, name) => {
    expect(expectSameReading(command)).toBe(true);
    expect(findInteractive(plainReader(command))).toBe(name);
  });

  it.each(['ls -la src', 'sleep 0.3; echo a', 'ls -la src && git status', 'sleep 30 # marker', 'cat a.txt | wc -l', 'ls\npwd', 'git log -5 --stat', 'git diff HEAD~1'.replace('~', '^')])(
    '%j: read as the parser reads it, read-only',
    (command) => {
      expect(expectSameReading(command)).toBe(true);
      expect(isSafeAlongside(plainReader, command)).toBe(true);
    },
  );

  it.each(LEFT_TO_THE_PARSER)('%j: left to the parser', (command) => {
    expect(plainWordsScript(command)).toBeNull();
    expect(() => plainReader(command)).toThrow(NeedsParser);
  });

  it('any line of plain-word pieces: null, or the parser\'s Script and verdicts', () => {
    const words = fc.constantFrom(
      'ls', '-la', 'cd', '/', '/usr', '..', 'rm', '-rf', '-r', 'usr', 'x', 'src/a.ts', 'sudo', 'vi', 'vim', '-es', 'cat',
      'echo', 'printf', '%s', 'bash', 'sh', '-c', 'eval', 'xargs', 'find', '-delete', '-exec', '{}', 'base64', '-d',
      'dd', 'if=/dev/zero', 'of=/dev/sda', 'mv', 'chmod', '-R', 'git', 'log', 'push', 'status', 'npm', 'test', 'timeout',
      '5', 'nohup', 'env', 'pushd', 'x=1', 'a:b', '%1', '^x', '@', '+', ',', '-', '--', '.', 'if', 'then', 'fi', 'time',
      'export', 'do', 'done', 'in', 'for', 'function', '==', '=', 'tee', 'wc', 'true', 'reboot', 'shutdown',
    );
    const seps = fc.constantFrom(' ', ' ', ' ', '  ', '\t', ' ; ', ';', ' && ', '||', ' | ', '|', '\n', ' &&\n', ' |\n', ' # c\n', ';;');
    const line = fc
      .tuple(fc.array(fc.tuple(words, seps), { minLength: 1, maxLength: 8 }), fc.constantFrom('', '', ' ', ';', '\n', ' |', ' # x'))
      .map(([pairs, end]) => pairs.map(([w, s], i) => (i === pairs.length - 1 ? w : w + s)).join('') + end);
    let read = 0;
    fc.assert(
      fc.property(line, (command) => {
        if (expectSameReading(command)) read++;
      }),
      { numRuns: 3000 },
    );
    expect(read).toBeGreaterThan(300); // the generator does reach plain lines
  });
});

describe('the bash tool before the parser has loaded', () => {
  it('judges a plain command at once and waits for the parser only for another', async () => {
    vi.resetModules();
    const load = await import('../../../src/tools/bash/judge/shell/load.js');
    const { createBashTool } = await import('../../../src/tools/bash/bashTool.js');
    const tool = createBashTool({ contain: false });
    const context = { cwd: process.cwd(), signal: new AbortController().signal };
    expect(tool.isConcurrencySafe?.({ command: 'ls -la src' })).toBe(true);
    const blocked = await tool.run({ command: 'sudo ls' }, context);
    expect(blocked).toMatchObject({ isError: true, content: expect.stringMatching(/^Dangerous command blocked: .*sudo/) });
    expect(await tool.run({ command: 'echo plain' }, context)).toMatchObject({ isError: false, content: 'plain' });
    expect(load.loadedShellParser()).toBeNull();
    expect(tool.isConcurrencySafe?.({ command: 'ls "src"' })).toBe(false); // not judged yet: starts the parser's load
    expect(await tool.run({ command: 'x=rm; $x -rf /' }, context)).toMatchObject({ isError: true, content: expect.stringMatching(/rm -r/) });
    expect(load.loadedShellParser()).not.toBeNull();
  });
});

describe('checkNow once the parser has loaded', () => {
  it('still reads a line of plain words without the parser, and any other line with it', async () => {
    const parser = await loadShellParser();
    const readerOf = (line: string) => checkNow((read) => (read(line), read))?.value;
    expect(readerOf('sleep 1; ls -la src | wc -l')).toBe(plainReader);
    expect(readerOf('ls "src"')).toBe(parserReader(parser));
    expect(readerOf('bash -c "ls -la"')).toBe(parserReader(parser));
    // The verdict is the same either way: what the plain reader gives is the parser's Script.
    expect(checkNow((read) => read('git status && ls src'))?.value).toEqual(parserReader(parser)('git status && ls src'));
  });
});
