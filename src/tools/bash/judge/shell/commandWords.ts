/** The command a simple command really runs, past wrappers such as `env`, `nohup`, `timeout 5`, `busybox`. */

/** A word's value; null when not known. */
export type Value = string | null;

/** Commands that run their arguments as a command; value: options that take a separate argument. */
const WRAPPERS: Record<string, string[]> = {
  env: ['-u', '--unset', '-C', '--chdir', '-S', '--split-string'],
  command: [],
  builtin: [],
  exec: ['-a'],
  nohup: [],
  nice: ['-n', '--adjustment'],
  time: ['-f', '--format', '-o', '--output'],
  timeout: ['-s', '--signal', '-k', '--kill-after'],
  stdbuf: ['-i', '-o', '-e'],
  ionice: ['-c', '-n', '-p', '-t'],
  xargs: ['-I', '-i', '-n', '-P', '-L', '-s', '-d', '-E', '-a', '--arg-file', '--delimiter', '--max-args', '--max-procs', '--replace'],
  setsid: [],
  unbuffer: [],
  busybox: [],
  toybox: [],
  chrt: [],
  taskset: [],
  flock: ['-w', '--timeout', '-E', '--conflict-exit-code'],
};
/** Wrappers whose first operand is not the command (`timeout 5 CMD`, `flock FILE CMD`, `chrt 10 CMD`, `taskset MASK CMD`). */
const FIRST_OPERAND = new Set(['timeout', 'flock', 'chrt', 'taskset']);

export interface Unwrapped {
  /** The command word and its arguments. */
  words: Value[];
  /** The wrappers passed, outermost first. */
  via: string[];
}

/** Drops the wrappers (`command -v NAME` only looks NAME up: no words). */
export function unwrap(words: readonly Value[]): Unwrapped {
  const via: string[] = [];
  let i = 0;
  while (i < words.length) {
    const w = words[i];
    if (w === null || w === undefined) break;
    const name = basename(w);
    if (!Object.hasOwn(WRAPPERS, name)) break;
    if (name === 'command' && /^-[pvV]*[vV]/.test(words[i + 1] ?? '')) return { words: [], via };
    via.push(name);
    const withArg = WRAPPERS[name] as string[];
    i++;
    while (i < words.length) {
      const a = words[i];
      if (a === null || a === undefined) break;
      if (withArg.includes(a)) i += 2;
      else if (a.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) i++;
      else break;
    }
    if (FIRST_OPERAND.has(name) && i < words.length) i++;
  }
  return { words: words.slice(i), via };
}

export function commandWords(words: readonly Value[]): Value[] {
  return unwrap(words).words;
}

export function basename(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/**
 * The directory a `cd DIR` (or `pushd DIR`) moves the commands after it to, from `cwd`: an absolute path or one
 * under `~`, a relative one when `cwd` is known, else null (not known); undefined when the command is no `cd`.
 */
export function changedDirectory(words: readonly Value[], cwd: string | null): string | null | undefined {
  const [name, ...args] = words;
  if (name !== 'cd' && name !== 'pushd') return undefined;
  const operands = args.filter((a) => a === null || !a.startsWith('-') || a === '-');
  const dir = operands.length === 0 ? '~' : operands[0];
  if (dir === null || dir === undefined || dir === '-') return null;
  if (dir.startsWith('/') || dir === '~' || dir.startsWith('~/')) return dir;
  return cwd === null ? null : `${cwd}/${dir}`;
}
