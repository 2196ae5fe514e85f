/**
 * What the bash tool asks of a command line before it runs it, or runs it beside other tools: one set of rules
 * (guard.ts, interactive.ts, readOnly.ts) on the Script of the line, read by the parser or, before it has loaded,
 * by plain.ts for a line of plain words (shell/reader.ts).
 */
import { findDanger } from './guard.js';
import { findInteractive } from './interactive.js';
import { isReadOnlyScript } from './readOnly.js';
import type { ReadScript } from './shell/reader.js';

/** Why the command is not run (what the model is told), or null when it may run. */
export function refusal(read: ReadScript, command: string): string | null {
  const script = read(command);
  const danger = findDanger(script, read);
  if (danger !== null) return `Dangerous command blocked: ${danger}. The command was not run.`;
  const interactive = findInteractive(script);
  return interactive === null ? null : interactiveMessage(interactive);
}

/** Not blocked, and read-only: it may run beside other tools. */
export function isSafeAlongside(read: ReadScript, command: string): boolean {
  const script = read(command);
  return findDanger(script, read) === null && isReadOnlyScript(script);
}

function interactiveMessage(name: string): string {
  return (
    `${name} is interactive and needs a terminal, which commands run here do not have: it would wait until the timeout. ` +
    `The command was not run. Edit files with other commands (sed, cat > file <<'EOF', patch), ` +
    `or script it: ${name} -es -c '%s/old/new/g' -c 'wq' FILE.`
  );
}
