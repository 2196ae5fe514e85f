/** The command line parsed (no process): Claude Code's forms, every new flag, and the one-line errors. */
import { describe, expect, it } from 'vitest';
import { type CliOptions, parseCliArgs, UsageError } from '../../../src/cli/commandLine/args.js';
import { MODEL_ALIASES } from '../../../src/core/models.js';
import { priceOf } from '../../../src/core/pricing.js';

const parse = (...argv: string[]) => parseCliArgs(argv);
const fails = (argv: string[]) => {
  try {
    parseCliArgs(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).not.toContain('\n');
    return (error as Error).message;
  }
  throw new Error(`${JSON.stringify(argv)} was accepted`);
};

describe('positional prompt and -p as a flag', () => {
  it.each<[string[], Partial<CliOptions>]>([
    [['-p', 'q'], { print: true, prompt: 'q', outputFormat: 'text' }],
    [['-p', '--output-format', 'json', 'q'], { print: true, prompt: 'q', outputFormat: 'json' }],
    [['--print', 'q', '--output-format', 'stream-json'], { print: true, prompt: 'q', outputFormat: 'stream-json' }],
    [['q', '-p'], { print: true, prompt: 'q' }],
    [['q'], { print: false, prompt: 'q' }],
    [[], { print: false }],
    [['-p'], { print: true }],
    [['--output-format', 'json', '--continue'], { print: true, continue: true }],
    [['-p', '--', '-starts with a dash'], { print: true, prompt: '-starts with a dash' }],
  ])('%j', (argv, expected) => {
    const options = parseCliArgs(argv);
    expect(options).toMatchObject({ command: 'run', ...expected });
    if (!('prompt' in expected)) expect(options.prompt).toBeUndefined();
  });

  it('keeps the subcommands; view takes its id as viewId', () => {
    expect(parse('sessions', '--output-format', 'json')).toMatchObject({ command: 'sessions', outputFormat: 'json' });
    expect(parse('view', 'abc', '--port', '0')).toMatchObject({ command: 'view', viewId: 'abc', port: 0 });
    expect(parse('view').viewId).toBeUndefined();
    expect(fails(['view', '-p'])).toBe('view does not take --print');
  });
});

describe('the new flags', () => {
  it('system prompts, verbose, partial messages, input format', () => {
    expect(
      parse('-p', 'q', '--system-prompt', 'You are terse.', '--append-system-prompt', 'Answer in French.', '--verbose'),
    ).toMatchObject({ systemPrompt: 'You are terse.', appendSystemPrompt: 'Answer in French.', verbose: true });
    expect(parse('-p', '--output-format', 'stream-json', '--include-partial-messages', 'q').includePartialMessages).toBe(true);
    expect(parse('-p', '--output-format', 'stream-json', '--input-format', 'stream-json')).toMatchObject({ inputFormat: 'stream-json' });
    expect(parse('--output-format', 'stream-json', '--input-format', 'stream-json').print).toBe(true);
  });

  it('model aliases resolve to full ids that the price table knows', () => {
    for (const [alias, id] of Object.entries(MODEL_ALIASES)) {
      expect(parse('-p', 'q', '--model', alias).model).toBe(id);
      expect(id).toMatch(new RegExp(`^claude-${alias}-`));
      expect(priceOf(id), id).toBeDefined();
    }
    expect(parse('--model', 'Opus', 'q').model).toBe(MODEL_ALIASES.opus);
    expect(parse('--model', 'claude-test', 'q').model).toBe('claude-test');
    expect(parse('--model', 'sonnet', '--fallback-model', 'haiku', 'q')).toMatchObject({
      model: MODEL_ALIASES.sonnet,
      fallbackModel: MODEL_ALIASES.haiku,
    });
    expect(priceOf(MODEL_ALIASES.opus!)).toMatchObject({ input: 4, output: 20 });
    expect(priceOf(MODEL_ALIASES.haiku!)).toMatchObject({ input: 0.1, output: 0.5 });
  });

  it('sessions: -r, --session-id (a UUID, lower-cased), --fork-session, --wait-for-session', () => {
    expect(parse('-r', 'abc', 'q').resume).toBe('abc');
    expect(parse('--resume', 'abc').resume).toBe('abc');
    const uuid = '3F2B8C1E-1234-4ABC-9DEF-0123456789AB';
    expect(parse('--session-id', uuid, '-p', 'q').sessionId).toBe(uuid.toLowerCase());
    expect(parse('-r', 'abc', '--fork-session', '--session-id', uuid)).toMatchObject({ resume: 'abc', forkSession: true });
    expect(parse('-c', '-p', 'q', '--wait-for-session')).toMatchObject({ continue: true, waitForSession: true });
    expect(parse('-r', 'abc').waitForSession).toBeUndefined();
  });

  it('budget: a positive number of dollars', () => {
    expect(parse('-p', 'q', '--max-budget-usd', '0.25').maxBudgetUsd).toBe(0.25);
    expect(parse('-p', 'q', '--max-budget-usd', '3').maxBudgetUsd).toBe(3);
    expect(parse('-p', 'q', '--max-budget-usd', '.5').maxBudgetUsd).toBe(0.5);
  });

  it('--allow-write: protected names, repeated or by commas, a folder of them too (.git)', () => {
    expect(parse('-p', 'q', '--sandbox', '--allow-write', '.bashrc,.git', '--allow-write', '.vscode/').allowWrite).toEqual(['.bashrc', '.git', '.vscode/']);
    expect(parse('-p', 'q', '--sandbox').allowWrite).toBeUndefined();
  });

  it('tool rules: several per value, by commas or spaces; a parenthesised rule stays whole; both spellings', () => {
    const options = parse(
      '-p',
      'q',
      '--allowedTools',
      'Bash(git log:*) Bash(npm test),Read',
      '--allowed-tools',
      'Bash(echo a, b)',
      '--disallowedTools',
      'Bash(rm:*)',
      '--disallowed-tools',
      ' Bash(curl:*) ,, WebFetch ',
    );
    expect(options.allowedTools).toEqual(['Bash(git log:*)', 'Bash(npm test)', 'Read', 'Bash(echo a, b)']);
    expect(options.disallowedTools).toEqual(['Bash(rm:*)', 'Bash(curl:*)', 'WebFetch']);
    expect(parse('-p', 'q').allowedTools).toBeUndefined();
  });
});

describe('bad command lines: one line each', () => {
  it.each<[string[], string | RegExp]>([
    [['--bogus'], 'unknown option --bogus'],
    [['--verbos'], 'unknown option --verbos (did you mean --verbose?)'],
    [['--alowedTools', 'Bash'], 'unknown option --alowedTools (did you mean --allowedTools?)'],
    [['-x'], 'unknown option -x'],
    [['--model'], '--model needs a value'],
    [['--model', '--verbose', 'q'], '--model needs a value (one that starts with "-" goes as --model=VALUE)'],
    [['--verbose=yes'], '--verbose takes no value'],
    [['-p', 'two', 'words'], 'unexpected argument "words": the prompt is one argument (put it in quotes)'],
    [['-p', '  '], 'the prompt is empty'],
    [['-p', 'q', '--output-format', 'xml'], '--output-format must be text, json or stream-json, not "xml"'],
    [['-p', 'q', '--input-format', 'yaml'], '--input-format must be text or stream-json, not "yaml"'],
    [['-p', '--input-format', 'stream-json'], '--input-format stream-json goes with --output-format stream-json'],
    [['-p', 'q', '--include-partial-messages'], '--include-partial-messages goes with --output-format stream-json'],
    [['-p', 'q', '--session-id', 'abc'], /^--session-id takes a UUID/],
    [['-r', 'abc', '--session-id', '3f2b8c1e-1234-4abc-9def-0123456789ab'], /needs --fork-session/],
    [['--fork-session', 'q'], '--fork-session goes with --resume or --continue'],
    [['-p', 'q', '--wait-for-session'], '--wait-for-session goes with --resume or --continue'],
    [['-r', 'a', '-c'], '--resume and --continue exclude each other'],
    [['-r', ' '], /^--resume needs a value/],
    [['-p', 'q', '--max-budget-usd', '0'], '--max-budget-usd takes a number above 0, not "0"'],
    [['-p', 'q', '--max-budget-usd', '-1'], '--max-budget-usd needs a value (one that starts with "-" goes as --max-budget-usd=VALUE)'],
    [['-p', 'q', '--max-budget-usd=-1'], '--max-budget-usd takes a number above 0, not "-1"'],
    [['-p', 'q', '--max-budget-usd', '1e3'], /takes a number above 0/],
    [['-p', 'q', '--max-budget-usd', 'lots'], /takes a number above 0/],
    [['--model', 'sonnet', '--fallback-model', 'sonnet', 'q'], '--fallback-model must differ from --model'],
    [['-p', 'q', '--allowedTools', 'Bash(git log'], '--allowedTools: "(" not closed in "Bash(git log"'],
    [['-p', 'q', '--disallowedTools', 'Bash)'], '--disallowedTools: ")" without "(" in "Bash)"'],
    [['-p', 'q', '--allowedTools', ' , '], /--allowedTools needs at least one rule/],
    [['-p', 'q', '--max-turns', '0'], '--max-turns takes a whole number of at least 1, not "0"'],
    [['-p', 'q', '--port', '1'], '--port goes with --view, --inspect or view'],
    [['-p', 'q', '--allow-write', '.bashrc'], '--allow-write goes with --sandbox'],
    [['-p', 'q', '--sandbox', '--allow-write', 'Makefile'], /^--allow-write takes a name of the sandbox's protected files \(\.git, .*\.bashrc, .*\), not "Makefile"$/],
  ])('%j', (argv, message) => {
    const text = fails(argv);
    if (typeof message === 'string') expect(text).toBe(message);
    else expect(text).toMatch(message);
  });
});
