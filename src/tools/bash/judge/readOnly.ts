/**
 * Decides whether a command line is plainly read-only, so that it may run alongside other tools.
 * Conservative: anything it does not fully understand answers false.
 *
 * Read-only means: every command is one of the known read-only programs below, used without the
 * options that write or run other programs (`find -exec/-delete`, `rg --pre`, `git diff --output`,
 * ...), joined only by `;`, `&&`, `||`, `|`, with no output redirection other than to /dev/null
 * or another descriptor (`2>&1`), and with no expansion at all: no `$VAR`, `$(...)`, backquotes,
 * process substitution, leading `VAR=value`, subshells, background `&` or here-documents.
 */
import type { Redirect, Script, SimpleCommand } from './shell/types.js';

interface Spec {
  /** Options that write files or run programs; `--opt` also matches `--opt=value`. */
  forbidden?: string[];
  /** Short options (letters) that are forbidden also inside clusters such as `-bC`. */
  forbiddenShort?: string;
  /** Unquoted globs are refused: a file named `-delete` or `--pre=x` would become an option. */
  noGlob?: boolean;
  /** Further checks on the arguments. */
  check?: (args: string[]) => boolean;
}

const GIT_READ_ONLY = new Set(['status', 'log', 'diff', 'show', 'rev-parse']);
/** `git branch` lists branches with these options and no name (a name would make one), as Claude Code's list has it. */
const GIT_BRANCH_LISTS = new Set(['-a', '--all', '-r', '--remotes', '-v', '-vv', '--verbose', '--show-current', '-l', '--list', '--no-color', '--no-column']);

const COMMANDS: Record<string, Spec> = {
  ls: {},
  cat: {},
  head: {},
  tail: {},
  wc: {},
  grep: {},
  egrep: {},
  fgrep: {},
  rg: { forbidden: ['--pre', '--pre-glob'], noGlob: true },
  find: {
    forbidden: ['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls'],
    noGlob: true,
  },
  pwd: {},
  echo: {},
  stat: {},
  file: { forbidden: ['--compile'], forbiddenShort: 'C', noGlob: true },
  which: {},
  sleep: {},
  true: {},
  du: {},
  basename: {},
  dirname: {},
  realpath: {},
  readlink: {},
  git: {
    noGlob: true,
    // Global options (`-c`, `--git-dir`, ...) come before the subcommand: `check` refuses them.
    forbidden: ['--output', '--ext-diff'],
    check: (args) => {
      const [sub, ...rest] = args[0] === '--no-pager' ? args.slice(1) : args;
      if (sub === 'branch') return rest.every((arg) => GIT_BRANCH_LISTS.has(arg));
      return sub !== undefined && GIT_READ_ONLY.has(sub);
    },
  },
};

/** A script that does not parse, or holds anything but plain commands (types.ts `plain`), is not read-only. */
export function isReadOnlyScript(script: Script): boolean {
  if (!script.complete || !script.plain || !script.redirects.every(isHarmlessRedirect)) return false;
  return script.commands.length > 0 && script.commands.every(isReadOnlySimple);
}

function isReadOnlySimple(cmd: SimpleCommand): boolean {
  if (cmd.assignments.length > 0 || !cmd.redirects.every(isHarmlessRedirect)) return false;
  const [first, ...rest] = cmd.words;
  if (first === undefined || first.dynamic || first.glob || first.value === null) return false;
  if (!Object.hasOwn(COMMANDS, first.value)) return false;
  const spec = COMMANDS[first.value] as Spec;
  if (rest.some((w) => w.dynamic || w.value === null || (spec.noGlob === true && w.glob))) return false;
  const args = rest.map((w) => w.value as string);
  return args.every((a) => !isForbidden(a, spec)) && (spec.check?.(args) ?? true);
}

function isForbidden(arg: string, spec: Spec): boolean {
  const forbidden = spec.forbidden ?? [];
  if (forbidden.some((f) => arg === f || arg.startsWith(`${f}=`))) return true;
  const short = spec.forbiddenShort;
  return short !== undefined && /^-[A-Za-z]+$/.test(arg) && [...short].some((c) => arg.includes(c));
}

/** Duplicating descriptors (`2>&1`), discarding output, reading a named file. */
function isHarmlessRedirect(r: Redirect): boolean {
  const target = r.target;
  if (target === null || target.dynamic || target.glob || target.value === null) return false;
  if (r.op === '>&' || r.op === '<&') return /^(\d+|-)$/.test(target.value);
  if (r.op === '<') return true;
  if (['>', '>>', '&>', '&>>', '>|'].includes(r.op)) return target.value === '/dev/null';
  return false;
}
