/** A mistake's run as text: the request, the verdict or what the model lost, the fix and the line that prevents it. */
import type { MessageParam } from '../core/messages.js';
import { MISTAKES } from './catalog.js';
import type { DemoRun, MistakeRun, SentRequest } from './run.js';
import { MISTAKE_NAMES } from './names.js';
import { findSourceLine } from './source.js';

type Block = Exclude<MessageParam['content'], string>[number];

const clip = (text: string, max = 70) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const quoted = (text: string) => JSON.stringify(clip(text.replace(/\s+/g, ' ').trim()));

function blockLine(block: Block): string {
  if (block.type === 'text') return `text ${quoted(block.text)}`;
  if (block.type === 'tool_use') return `tool_use ${block.id} ${block.name} ${JSON.stringify(block.input)}`;
  if (block.type === 'tool_result') {
    const content = typeof block.content === 'string' ? block.content : JSON.stringify(block.content ?? '');
    const id = typeof block.tool_use_id === 'string' ? `for ${block.tool_use_id}` : '(no tool_use_id)';
    return `tool_result ${id} ${quoted(content)}`;
  }
  return block.type;
}

/** A request's messages, one line each. */
export function requestLines(request: SentRequest): string[] {
  return request.messages.map((m, i) => {
    const blocks = typeof m.content === 'string' ? [`text ${quoted(m.content)}`] : m.content.map(blockLine);
    return `  messages[${i}] ${m.role}: ${blocks.join(' · ')}`;
  });
}

/** Whether the mistake showed: a refused request, or an answer other than the correct run's. */
export function symptomOf(run: MistakeRun): 'refused' | 'degraded' | 'none' {
  if (run.mistaken.refused) return 'refused';
  return run.mistaken.text !== run.correct.text || run.mistaken.next.problems.length > 0 ? 'degraded' : 'none';
}

const times = (n: number) => (n === 1 ? 'once' : `${n} times`);

function refusedLines(run: DemoRun): string[] {
  const refused = run.refused;
  if (!refused) return [];
  const { verdict, request, index } = refused;
  return [
    `The request the loop sends next (request ${index + 1}, turn ${request.turnCount}):`,
    ...requestLines(request),
    '',
    'The validator (historyProblems, src/history/validate.ts) finds:',
    ...verdict.problems.map((p) => `  - ${p}`),
    'The API refuses it: 400 invalid_request_error',
    `  ${verdict.apiError ?? verdict.problems.join('; ')}`,
  ];
}

function degradedLines(run: DemoRun, correct: DemoRun): string[] {
  const count = run.requests.length;
  const lines = [
    `The API accepts ${count === 1 ? 'the one request' : `all ${count} requests`} sent, and nothing warns; but the model never gets to see what the tool showed:`,
  ];
  const [command] = correct.commands;
  if (command !== undefined && run.commands.length > correct.commands.length) {
    lines.push(`  - it ran \`${command}\` ${times(run.commands.length)} (the correct run: ${times(correct.commands.length)}): it never saw the output, so it asked again`);
  }
  lines.push(`  - the run ended with exit reason ${run.exitReason} after ${count} model call${count === 1 ? '' : 's'} (the correct run: ${correct.exitReason} after ${correct.requests.length})`);
  lines.push(`  - its last answer: ${quoted(run.text)}`);
  lines.push(`    the correct run's: ${quoted(correct.text)}`);
  if (run.next.problems.length > 0) {
    lines.push('  - the history it saved is invalid (historyProblems):', ...run.next.problems.map((p) => `      ${p}`));
    lines.push(`    so the next question in this session is refused: 400 invalid_request_error: ${run.next.apiError ?? run.next.problems.join('; ')}`);
  }
  return lines;
}

/** Where the correct loop prevents the mistake, as `path:line` and the line. */
export function preventingLine(run: MistakeRun): string {
  const { file, line } = run.mistake.prevents;
  const found = findSourceLine(file, line);
  if (!found) return `  src/${file} (${line})`;
  return `  ${found.path}:${found.line}: ${found.text}`;
}

/** The report; `command` runs agentloop (cli/commandLine/self.ts: `agentloop`, or `node /…/main.js` in a clone). */
export function formatMistakeReport(run: MistakeRun, command = 'agentloop'): string {
  const { mistake, mistaken, correct } = run;
  const lines = [
    `Mistake ${mistake.name}: the loop ${mistake.summary}.`,
    `(The real machine with one ${mistake.swaps.kind}, ${mistake.swaps.name}, swapped through machine.provide.)`,
    '',
    ...(mistaken.refused ? refusedLines(mistaken) : degradedLines(mistaken, correct)),
    '',
    `Fix: ${mistake.fix}`,
    'The correct machine does it here:',
    preventingLine(run),
    '',
    `Saved: the mistaken run as session ${mistaken.sessionId}, the correct run (same scripted model, the real machine) as ${correct.sessionId}.`,
    'Step through both side by side:',
    `  ${command} view --compare ${mistaken.sessionId} ${correct.sessionId}`,
  ];
  return `${lines.join('\n')}\n`;
}

/** `--mistake list`. */
export function formatMistakeList(command = 'agentloop'): string {
  const width = Math.max(...MISTAKE_NAMES.map((n) => n.length));
  const lines = MISTAKE_NAMES.map((name) => `  ${name.padEnd(width)}  ${MISTAKES[name].summary}`);
  return `The mistakes ${command} --demo --mistake NAME can make (each swaps one action or guard of the real machine):\n${lines.join('\n')}\n`;
}
