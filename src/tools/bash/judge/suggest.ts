/**
 * What a question about a command line offers, as Claude Code 2.1.197 offers it (its `permission_suggestions`,
 * recorded in test/permissions/claudeSuggestions.json):
 *
 * - the allow rule, kept in the local settings: a command of plain words whose second word is a subcommand-like word
 *   gets its first two words and ` *` (`git commit -m x` -> `Bash(git commit *)`, `echo hi > a.txt` ->
 *   `Bash(echo hi *)`: a redirection is not part of the words); any other line, exactly that line
 *   (`touch made.txt` -> `Bash(touch made.txt)`);
 * - the folders of the files it writes (`touch`, `mkdir`, `cp`, `mv`'s paths, a redirection's file), for the session;
 * - the mode acceptEdits, when that mode would run it (./fileEdit.ts) with those folders added.
 */
import { dirname, resolve } from 'node:path';
import type { PermissionUpdate } from '../../../core/tool.js';
import { isFileEdit } from './fileEdit.js';
import type { Script } from './shell/types.js';

const PLAIN_WORD = /^[A-Za-z0-9_./=:@%+,-]+$/;
const SUBCOMMAND = /^[a-z][a-z0-9_-]*$/;
/** A word that starts a redirection: `>`, `>>`, `2>`, `&>`, `<`, `>|`, `>&2`, `>a.txt`. */
const REDIRECTION = /^\d*(?:&?>>?|<|>\||>&)/;

/** The rule's text, the tool written `toolName` (`Bash`). */
export function suggestCommandRule(toolName: string, command: string): string {
  const line = command.trim().replace(/\s+/g, ' ');
  if (line === '') return toolName;
  const tokens = line.split(' ');
  const cut = tokens.findIndex((t) => REDIRECTION.test(t));
  const words = cut < 0 ? tokens : tokens.slice(0, cut);
  const [program, second] = words;
  const plain = program !== undefined && !program.includes('=') && words.every((w) => PLAIN_WORD.test(w));
  if (plain && second !== undefined && SUBCOMMAND.test(second)) return `${toolName}(${program} ${second} *)`;
  return `${toolName}(${line})`;
}

const WRITES_ITS_PATHS = new Set(['touch', 'mkdir', 'cp', 'mv']);
const WRITING_REDIRECTION = /^(?:>|>>|&>|&>>|>\||<>)$/;

/** Claude Code's suggestions for `command` (read as `script`), run in `dirs[0]`: the rule, the folders, the mode. */
export function commandSuggestions(toolName: string, command: string, script: Script | null, dirs: readonly string[]): PermissionUpdate[] {
  const rule = suggestCommandRule(toolName, command);
  const content = /^[^(]*\((.*)\)$/s.exec(rule)?.[1];
  const updates: PermissionUpdate[] = [{ type: 'addRules', rules: [{ toolName, ...(content === undefined ? {} : { ruleContent: content }) }], behavior: 'allow', destination: 'localSettings' }];
  if (script === null || dirs.length === 0) return updates;
  const folders = writtenFolders(script, dirs[0] as string);
  if (folders.length > 0) updates.push({ type: 'addDirectories', directories: folders, destination: 'session' });
  if (isFileEdit(script, [...dirs, ...folders])) updates.push({ type: 'setMode', mode: 'acceptEdits', destination: 'session' });
  return updates;
}

/** The folders of the files a line writes, as written (with known values): `touch`, `mkdir`, `cp`, `mv`'s paths, redirections. */
function writtenFolders(script: Script, cwd: string): string[] {
  const paths: string[] = [];
  for (const command of script.commands) {
    const [name, ...args] = command.words.map((w) => w.value);
    const base = command.cwd ?? cwd;
    if (name && WRITES_ITS_PATHS.has(name)) {
      const operands = args.filter((a): a is string => a !== null && !a.startsWith('-'));
      const written = name === 'cp' || name === 'mv' ? operands.slice(-1) : operands;
      paths.push(...written.map((a) => resolve(base, a)));
    }
    for (const r of command.redirects) if (WRITING_REDIRECTION.test(r.op) && r.fd === null && r.target?.value) paths.push(resolve(base, r.target.value));
  }
  for (const r of script.redirects) if (WRITING_REDIRECTION.test(r.op) && r.target?.value) paths.push(resolve(cwd, r.target.value));
  return [...new Set(paths.filter((p) => p !== '/dev/null').map((p) => dirname(p)))];
}
