/**
 * The allow rule that would let a denied call run, as Claude Code offers one ("Yes, and don't ask again for ..."): the
 * REPL shows it before adding it for the session, and a `-p` run names it in the line that says a call was denied.
 *
 * - a command of plain words (no quotes, operators, substitutions, redirections): its program, and its subcommand for
 *   the programs that have them: `touch a.txt` -> `Bash(touch:*)`, `git commit -m x` -> `Bash(git commit:*)`;
 * - any other command line: exactly that line, `Bash(echo hi > a.txt)` (a `*` in it matches anything there);
 * - another tool: the tool, `mcp__github__create_issue`.
 */

/** Programs whose second word names what they do (`git push`, `npm install`): the rule keeps it. */
const SUBCOMMANDS = new Set([
  'git', 'npm', 'npx', 'pnpm', 'yarn', 'bun', 'cargo', 'go', 'docker', 'kubectl', 'pip', 'pip3', 'apt', 'apt-get',
  'make', 'systemctl', 'gh', 'node', 'python', 'python3',
]);

const PLAIN_WORD = /^[A-Za-z0-9_./=:@%+,-]+$/;

/** The rule's text; its tool is written as Claude Code writes it (`Bash`). */
export function suggestRule(toolName: string, input: unknown): string {
  const command = toolName.toLowerCase() === 'bash' && isRecord(input) && typeof input.command === 'string' ? input.command.trim() : null;
  if (command === null) return toolName.toLowerCase() === 'bash' ? 'Bash' : toolName;
  const words = command.split(/\s+/);
  const [program, second] = words;
  if (program === undefined || !words.every((w) => PLAIN_WORD.test(w)) || program.includes('=')) return `Bash(${oneLine(command)})`;
  const sub = second !== undefined && SUBCOMMANDS.has(program) && /^[a-z][a-z0-9-]*$/.test(second) ? ` ${second}` : '';
  return `Bash(${program}${sub}:*)`;
}

function oneLine(command: string): string {
  return command.replace(/\s+/g, ' ');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
