/**
 * `agentloop worker --help` and `submit --help`, from the built CLI: each names every flag the command takes, and the
 * line of each durable permission flag says what it does there (the worker's mode is the mode of its runs that name
 * none, and their cap; a call the mode asks about waits for `agentloop approve`; submit's -p prints an id, not a
 * result), not what it does for a local run (asked in the REPL, denied with -p).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { OPTIONS, type AnyOption, type CommandName } from '../../src/cli/commandLine/options.js';
import { namesOf } from '../../src/cli/commandLine/parse.js';
import { CLI, cliEnv } from '../support/cli.js';

const help = (command: CommandName) => {
  const run = spawnSync(process.execPath, [CLI, command, '--help'], { env: cliEnv(), encoding: 'utf8' });
  expect(run.status).toBe(0);
  return run.stdout;
};

/** The help's line of `--flag`, its wrapped lines joined. */
function lineOf(text: string, flag: string): string {
  const lines = text.split('\n');
  const at = lines.findIndex((line) => new RegExp(`^\\s+(-\\w, )?--${flag}\\b`).test(line));
  expect(at, `--${flag}`).toBeGreaterThanOrEqual(0);
  const rest = lines.slice(at + 1);
  const end = rest.findIndex((line) => !/^ {34}\S/.test(line));
  return [lines[at] as string, ...rest.slice(0, end < 0 ? rest.length : end)].map((line) => line.trim()).join(' ');
}

const takes = (command: CommandName) => (Object.values(OPTIONS) as AnyOption[]).filter((spec) => spec.commands.includes(command) && !spec.hidden);

describe.each<CommandName>(['worker', 'submit'])('agentloop %s --help', (command) => {
  it('names every flag the command takes', () => {
    const text = help(command);
    for (const spec of takes(command)) for (const name of namesOf(spec)) expect(text, `--${name}`).toMatch(new RegExp(`--${name}\\b`));
  });

  it("says what its permission flags do in a durable run, not in a local one", () => {
    const text = help(command);
    const mode = lineOf(text, 'permission-mode');
    expect(mode).toContain('agentloop approve');
    expect(mode).not.toMatch(/asked in the REPL|denied with -p/);
    expect(mode).toMatch(/IS_SANDBOX=1/);
    expect(lineOf(text, 'disallowedTools')).toMatch(command === 'worker' ? /any run this worker serves.*bypassPermissions included/ : /the worker's --disallowedTools hold as well/);
    if (command === 'worker') {
      expect(mode).toMatch(/the mode of each run this worker serves that names none \(without the flag: default\), and the most permissive one any run gets/);
      expect(lineOf(text, 'model')).toContain('runs submitted without --model');
    } else {
      expect(mode).toMatch(/the mode of this run \(default: the worker's --permission-mode, else default\), at most the worker's/);
      expect(lineOf(text, 'allowedTools')).toMatch(/^--allowedTools, --allowed-tools RULES run these without asking/);
      expect(lineOf(text, 'print')).toMatch(/prints the session id/);
      expect(lineOf(text, 'print')).not.toMatch(/print the result/);
    }
  });
});
