/**
 * The REPL asks before a call the permission mode would not run (Claude Code's question): the call, why it is asked
 * about, and three choices taken by one key in a terminal (or a line and Enter): `1` (or `y`) yes, once; `2` (or `a`)
 * yes, and don't ask again: the rule shown is allowed from now on and saved in the project's
 * `.claude/settings.local.json`, as Claude Code saves it; `3` (or `n`, Esc) no, then a line for the model
 * saying why (Enter alone: no reason). A denied call never runs: the model gets an `is_error` result bound to its
 * `tool_use` with the reason. Everything shown that came from the model (the command) is made visible first
 * (../printers/terminal.ts `shown`: no escape sequence of the model's reaches the terminal).
 */
import type { ToolUseBlock } from '../../core/messages.js';
import { toolCallLine, type Tool } from '../../core/tool.js';
import { isValidRule, type PermissionAsker } from '../../permissions/gate.js';
import { palette } from '../printers/output.js';
import type { ReplInput } from './replInput.js';
import { shown } from '../printers/terminal.js';

/** The choice a key (or a typed line) stands for; null: none of them. */
export function choiceOf(answer: string): 'once' | 'session' | 'deny' | null {
  const key = answer.trim().toLowerCase();
  if (key === '1' || key === 'y' || key === 'yes') return 'once';
  if (key === '2' || key === 'a') return 'session';
  if (key === '3' || key === 'n' || key === 'no' || key === '\x1b') return 'deny';
  return null;
}

/** What the model is told when the user says no (after "Not run: "). */
export function deniedByUser(reason: string): string {
  const said = reason.trim();
  return said === '' ? 'the user denied this call in the terminal' : `the user denied this call in the terminal and said: ${said}`;
}

/**
 * The question's text: the call as its tool shows it (`$ touch a.txt`, `Write hello.txt`: core/tool.ts toolCallLine),
 * why it is asked about, and the choices with the rule the second would allow.
 */
export function questionText(block: ToolUseBlock, tool: Tool | undefined, why: string, rule: string | null, colors: ReturnType<typeof palette>): string {
  const what = toolCallLine(tool, block.name, block.input);
  const lines = [
    colors.bold(`Allow ${shown(what)} ?`),
    colors.dim(`  (${shown(why)})`),
    '  1  yes, once',
    ...(rule !== null ? [`  2  yes, and don't ask again for ${shown(rule)} in this project`] : []),
    '  3  no, and tell the model why',
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * The asker of the REPL's gate: one question at a time on `input`; choice 2 allows the rule shown for the rest of the
 * run (the answer's `rules`) and, through `remember` (which says where it was saved), of the session and the project.
 * `before` runs first (the thinking line stops); a run aborted while asking is a denial.
 */
export function replAsker(input: ReplInput, out: NodeJS.WriteStream, before: () => void, remember: (rule: string) => string): PermissionAsker {
  const colors = palette(out, process.env);
  let queue: Promise<unknown> = Promise.resolve();
  const askOne: PermissionAsker = async ({ block, tool, reason, suggestion, signal }) => {
    before();
    const rule = suggestion !== undefined && isValidRule(suggestion) ? suggestion : null;
    out.write(questionText(block, tool, reason, rule, colors));
    const choices = rule !== null ? '1/2/3' : '1/3';
    for (;;) {
      const answer = await input.ask(`[${choices}] `, signal, true);
      if (answer === null) return { allow: false, message: signal.aborted ? 'the run was interrupted while the user was asked' : 'the user gave no answer (the input ended)' };
      const choice = choiceOf(answer);
      if (choice === 'once') return { allow: true };
      if (choice === 'session' && rule !== null) {
        out.write(colors.dim(`${shown(remember(rule))}\n`));
        return { allow: true, rules: [rule] };
      }
      if (choice === 'deny') {
        const reason = await input.ask('Why (for the model; Enter for no reason): ', signal);
        return { allow: false, message: deniedByUser(reason ?? '') };
      }
    }
  };
  // Calls asked about in parallel are asked one after the other.
  return (question) => {
    const next = queue.then(() => askOne(question));
    queue = next.catch(() => undefined);
    return next;
  };
}
