/**
 * The option table (src/cli/commandLine/options.ts) and what is walked from it: the parser (one for every command, Claude Code's
 * variadic rule lists), `--help` per command, the one-line errors with the pointer to the command's help, and the
 * docs' flag table.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLocal, parseCommandLine, UsageError, type CliOptions } from '../../../src/cli/commandLine/args.js';
import { flagTable, helpText } from '../../../src/cli/commandLine/help.js';
import { COMMAND_NAMES, COMMANDS, OPTIONS, type AnyOption, type CommandName } from '../../../src/cli/commandLine/options.js';
import { namesOf } from '../../../src/cli/commandLine/parse.js';
import { MODEL_ALIASES } from '../../../src/core/models.js';
import { CLI, SELF, cliEnv } from '../../support/cli.js';
import { flagTableBlocks, FLAG_TABLE_PAGES } from '../../support/flagTable.js';

const entries = Object.entries(OPTIONS) as [string, AnyOption][];
const takes = (command: CommandName) => entries.filter(([, spec]) => spec.commands.includes(command));

describe('the table', () => {
  it('gives each command one entry per flag name, and a name the same reading in every command', () => {
    for (const command of COMMAND_NAMES) {
      const names = takes(command).flatMap(([, spec]) => namesOf(spec));
      expect(names, command).toEqual([...new Set(names)]);
      const shorts = takes(command).flatMap(([, spec]) => (spec.short ? [spec.short] : []));
      expect(shorts, command).toEqual([...new Set(shorts)]);
    }
    const reading = new Map<string, string>();
    for (const [key, spec] of entries) {
      for (const name of namesOf(spec)) {
        const shape = JSON.stringify({ value: spec.argument !== undefined, list: spec.list !== undefined, short: name === spec.flag ? spec.short : undefined });
        expect(reading.get(name) ?? shape, `${key}: --${name}`).toBe(shape);
        reading.set(name, shape);
      }
    }
  });

  it('has a command spec for every command, and every command takes --help', () => {
    expect(Object.keys(COMMANDS).sort()).toEqual([...COMMAND_NAMES].sort());
    for (const command of COMMAND_NAMES) expect(takes(command).map(([key]) => key)).toContain('help');
  });
});

describe('--help', () => {
  it('agentloop COMMAND --help names every flag the command takes, and none it does not', () => {
    for (const command of COMMAND_NAMES.filter((c) => c !== 'run')) {
      const text = helpText(command);
      expect(text, command).toMatch(new RegExp(`^Usage: agentloop ${command}`));
      for (const [, spec] of takes(command)) {
        for (const name of namesOf(spec)) expect(text, `${command} --${name}`).toMatch(new RegExp(`--${name}\\b`));
        if (spec.short) expect(text).toMatch(new RegExp(`-${spec.short}, --${spec.flag}\\b`));
      }
      const own = new Set(takes(command).flatMap(([, spec]) => namesOf(spec)));
      const foreign = entries.flatMap(([, spec]) => namesOf(spec)).filter((name) => !own.has(name));
      for (const name of foreign) expect(text, `${command} shows --${name}`).not.toMatch(new RegExp(`^\\s+(-\\w, )?--${name}\\b`, 'm'));
    }
  });

  it('agentloop --help lists every command with every flag it takes', () => {
    const text = helpText();
    for (const command of COMMAND_NAMES) {
      for (const usage of COMMANDS[command].usage) expect(text).toContain(`agentloop ${usage}`);
    }
    for (const [, spec] of entries) for (const name of namesOf(spec)) expect(text).toContain(`--${name}`);
    const workerSection = text.slice(text.indexOf('agentloop worker [options]\n'));
    for (const flag of ['--register', '--advertise', '--identity-key', '--host', '--sandbox', '--allow-env']) expect(workerSection).toContain(flag);
  });

  it.each([[['worker', '--help']], [['submit', '-h']], [['result', '--help', 'abc']], [['worker', '--port', 'x', '--help']]])('%j asks for that command\'s help', (argv) => {
    expect(parseCommandLine(argv)).toEqual({ command: 'help', print: false, demo: false, outputFormat: 'text', helpFor: argv[0] });
  });
});

describe('the docs', () => {
  it('hold the table walked from the option table, in one place (npm run docs:flags writes it)', () => {
    const blocks = FLAG_TABLE_PAGES.flatMap((page) => flagTableBlocks(readFileSync(page, 'utf8')));
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toBe(flagTable());
    for (const [, spec] of entries) expect(flagTable()).toContain(`\`--${spec.flag}\``);
  });
});

const fails = (argv: string[]) => {
  try {
    parseCommandLine(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return { message: (error as UsageError).message, command: (error as UsageError).command };
  }
  throw new Error(`${JSON.stringify(argv)} was accepted`);
};

describe('one parser for every command', () => {
  it('worker and submit resolve the model aliases as a run does', () => {
    expect(parseCommandLine(['worker', '--model', 'sonnet'])).toMatchObject({ command: 'worker', model: MODEL_ALIASES.sonnet });
    expect(parseCommandLine(['submit', '--model=Haiku', '-p', 'q'])).toMatchObject({ command: 'submit', model: MODEL_ALIASES.haiku, prompt: 'q' });
    expect(parseCommandLine(['submit', 'q'])).toMatchObject({ command: 'submit', prompt: 'q' });
  });

  it.each<[string[], string, string | undefined]>([
    [['worker', '--regster', 'http://a'], 'unknown option --regster (did you mean --register?)', 'worker'],
    [['worker', '-p'], 'worker does not take --print', 'worker'],
    [['sessions', '--model', 'x'], 'sessions does not take --model', 'sessions'],
    [['-p', 'q', '--wait'], '--wait goes with submit', 'submit'],
    [['-p', 'q', '--register', 'http://a'], '--register goes with worker, balancer', 'worker'],
    [['-p', 'q', '--compare'], '--compare goes with view', 'view'],
    [['submit', '-p', 'q', '--max-turns', '0'], '--max-turns takes a whole number of at least 1, not "0"', 'submit'],
    [['result'], 'result needs a session id (submit prints it)', 'result'],
    [['-p', 'q', '--max-turns', '0'], '--max-turns takes a whole number of at least 1, not "0"', undefined],
    [['view', '--restate', 'http://r:1', 'a', '--compare'], 'view --restate does not take --compare', 'view'],
  ])('%j: one line, pointing to the help of the command', (argv, message, command) => {
    expect(fails(argv)).toEqual({ message, command });
  });

  it('a bad line is one line for any words, never another error', () => {
    const names = entries.flatMap(([, spec]) => namesOf(spec));
    const word = fc.oneof(
      fc.constantFrom(...COMMAND_NAMES, ...names.map((n) => `--${n}`), '-p', '-r', '-c', '-h', '-v', '-x', '--', '--bogus'),
      fc.constantFrom('0', '1', '9080', 'x', '', ' ', 'sonnet', 'http://h:1', 'Bash(git log:*)', 'Bash(', 'a b', '3f2b8c1e-1234-4abc-9def-0123456789ab'),
      fc.string({ maxLength: 6 }),
    );
    const argv = fc.array(word, { maxLength: 8 }).map((words) => words.flatMap((w) => (w.startsWith('--') && w.length > 2 ? [w, `${w}=1`] : [w])).slice(0, 8));
    fc.assert(
      fc.property(argv, (words) => {
        try {
          parseCommandLine(words);
        } catch (error) {
          if (!(error instanceof UsageError)) throw error;
          expect(error.message).not.toContain('\n');
          expect(error.message.length).toBeGreaterThan(0);
          if (error.command !== undefined) expect(COMMAND_NAMES).toContain(error.command);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("variadic rule lists, as Claude Code's", () => {
  const run = (...argv: string[]) => parseCommandLine(argv) as CliOptions;

  it.each<[string[], string[] | undefined, string | undefined]>([
    [['-p', '--allowedTools', 'Bash', 'Read', '--verbose', 'q'], ['Bash', 'Read'], 'q'],
    [['-p', 'q', '--allowedTools', 'Bash', 'Read'], ['Bash', 'Read'], 'q'],
    [['-p', '--allowedTools', 'Bash(git log:*)', 'Read', '--', 'q'], ['Bash(git log:*)', 'Read'], 'q'],
    [['-p', '--allowedTools=Bash', 'q'], ['Bash'], 'q'],
    [['-p', '--allowedTools', 'Bash,Read', '--allowed-tools', 'Edit', 'q'], ['Bash', 'Read', 'Edit', 'q'], undefined],
    // As Claude Code does: the words after the flag are rules, the prompt too (put it first, or after --).
    [['-p', '--allowedTools', 'Bash', 'what is here'], ['Bash', 'what', 'is', 'here'], undefined],
  ])('%j', (argv, rules, prompt) => {
    const options = run(...argv);
    expect(options.allowedTools).toEqual(rules);
    expect(options.prompt).toBe(prompt);
  });

  it('a list that took the last word after others offers it as the prompt, for a -p run that gets none from stdin', () => {
    expect(run('-p', '--disallowedTools', 'Bash(rm:*)', 'go')).toMatchObject({
      disallowedTools: ['Bash(rm:*)', 'go'],
      lastWordPrompt: { prompt: 'go', disallowedTools: ['Bash(rm:*)'] },
    });
    expect(run('-p', '--allowedTools', 'Bash', 'Read', 'what is here')).toMatchObject({ lastWordPrompt: { prompt: 'what is here', allowedTools: ['Bash', 'Read'] } });
    for (const argv of [['-p', '--allowedTools', 'Bash'], ['-p', 'q', '--allowedTools', 'Bash', 'Read'], ['-p', '--allowedTools', 'Bash', 'Read', '--verbose'], ['-p', '--allowedTools=Bash', 'q']]) {
      expect(run(...argv).lastWordPrompt, JSON.stringify(argv)).toBeUndefined();
    }
  });

  it('--disallowedTools too; --allow-env is repeated, not variadic', () => {
    expect(run('--disallowedTools', 'Bash(rm:*)', 'Bash(curl:*)', '-p', 'q')).toMatchObject({ disallowedTools: ['Bash(rm:*)', 'Bash(curl:*)'], prompt: 'q' });
    expect(run('-p', '--allow-env', 'GH_TOKEN', 'q', '--allow-env', 'NPM_TOKEN')).toMatchObject({ allowEnv: ['GH_TOKEN', 'NPM_TOKEN'], prompt: 'q' });
    expect(isLocal(run('-p', 'q'))).toBe(true);
  });
});

describe('every command, as a process', () => {
  const cli = (argv: string[]) => spawnSync(process.execPath, [CLI, ...argv], { env: cliEnv(), encoding: 'utf8' });

  it.each(COMMAND_NAMES.filter((c) => c !== 'run'))('agentloop %s --help prints its flags; a bad flag is one line and a pointer to that help', (command) => {
    const help = cli([command, '--help']);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(new RegExp(`^Usage: agentloop ${command}`));
    for (const [, spec] of takes(command)) for (const name of namesOf(spec)) expect(help.stdout, `--${name}`).toMatch(new RegExp(`--${name}\\b`));
    const bad = cli([command, '--bogus']);
    expect(bad.status).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toBe(`agentloop: unknown option --bogus\nsee ${SELF} ${command} --help\n`);
  });
});
