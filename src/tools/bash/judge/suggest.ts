/**
 * The allow rule that would let a command line run, as Claude Code offers one ("Yes, and don't ask again for ..."):
 *
 * - a command of plain words (no quotes, operators, substitutions, redirections): its program, and its subcommand for
 *   the programs that have them: `touch a.txt` -> `Bash(touch:*)`, `git commit -m x` -> `Bash(git commit:*)`;
 * - any other command line: exactly that line, `Bash(echo hi > a.txt)` (a `*` in it matches anything there).
 */

/** Programs whose second word names what they do (`git push`, `npm install`): the rule keeps it. */
const SUBCOMMANDS = new Set([
  'git', 'npm', 'npx', 'pnpm', 'yarn', 'bun', 'cargo', 'go', 'docker', 'kubectl', 'pip', 'pip3', 'apt', 'apt-get',
  'make', 'systemctl', 'gh', 'node', 'python', 'python3',
]);

const PLAIN_WORD = /^[A-Za-z0-9_./=:@%+,-]+$/;

/** The rule's text, the tool written `toolName` (`Bash`). */
export function suggestCommandRule(toolName: string, command: string): string {
  const line = command.trim();
  if (line === '') return toolName;
  const words = line.split(/\s+/);
  const [program, second] = words;
  if (program === undefined || !words.every((w) => PLAIN_WORD.test(w)) || program.includes('=')) return `${toolName}(${line.replace(/\s+/g, ' ')})`;
  const sub = second !== undefined && SUBCOMMANDS.has(program) && /^[a-z][a-z0-9-]*$/.test(second) ? ` ${second}` : '';
  return `${toolName}(${program}${sub}:*)`;
}
