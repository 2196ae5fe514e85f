/**
 * One sentence per step, made only of what the step's records show (facts.ts): the messages
 * written, deleted or left out, the blocks counted, the stop_reason as received, the guard that
 * fired, the request and what it adds to the one before. Never the path the loop should have
 * taken: a mistaken run (src/mistakes/) is told as it went. test/view/narration.test.ts checks
 * every sentence of the demo and of each mistake against its records.
 */
import type { MessageParam } from '../core/messages.js';
import { plural } from '../core/plural.js';
import { indexList, messagesAt, requestDeltaText } from './history.js';
import { brokenBlocks, type StepFacts } from './facts.js';
import { lessonOf } from './lesson.js';
import type { Timeline, TimelineStep } from './timeline.js';

const exit = (step: TimelineStep) => (step.exitReason ? ` (exitReason ${step.exitReason})` : '');
const reason = (step: TimelineStep) => (step.transitionReason ? `, transitionReason ${step.transitionReason}` : '');
const guardText = (guard: string) => (guard === 'else' ? '[else]' : guard);
const uses = (list: Array<{ name: string; command: string }>) => list.map((u) => `${u.name}: ${u.command}`).join('; ');

/** Fills `sentence` and `lesson` of every step. */
export function explainAll(t: Timeline): void {
  t.steps.forEach((step, i) => {
    step.sentence = explainStep(t, step, i);
    step.lesson = lessonOf(step);
  });
}

export function explainStep(t: Timeline, step: TimelineStep, i: number): string {
  if (step.kind === 'reply') return replySentence(t, step, i);
  switch (step.state) {
    case 'callingModel':
      return callingModel(step);
    case 'executingTools':
      return executingTools(t, step, i);
    case 'appendingResults':
      return appending(t, step, i);
    case 'waitingToRetry':
      return step.retry
        ? `The model call failed (${step.retry.error}); it can be retried, so the loop waits ${step.retry.delayMs} ms before attempt ${step.retry.attempt + 1}.`
        : 'The model call failed and can be retried: the loop waits before calling again.';
    case 'done':
      return done(t, step, i);
    case 'failed':
      return failed(step);
    case 'aborted':
      return `The run was interrupted (ABORT): running tools are stopped and answered, so the history stays valid${exit(step)}.`;
    default:
      return `The machine enters ${step.state}.`;
  }
}

function requestClause(f: StepFacts, step: TimelineStep): string {
  const r = f.request;
  if (!r) return `The loop calls the model (turn ${step.turnCount}${reason(step)}); no request was recorded for this call.`;
  const lost = r.readable < r.messageCount ? ` (${r.messageCount - r.readable} of the ${r.messageCount} it carried could not be read from the transcript)` : '';
  const delta = r.number > 1 ? `: ${requestDeltaText(r)}` : '';
  const sent = `The loop sends request ${r.number}, state.messages (${plural(r.readable, 'message')}${lost}) and the tool definitions, to the model (turn ${step.turnCount}${reason(step)})${delta}.`;
  const broken = f.broken.find((b) => b.index < r.readable);
  if (broken) return `${sent} It carries ${indexList([broken.index])}, which holds ${broken.what}.`;
  return r.problems.length ? `${sent} The history it sends is invalid: ${r.problems[0]}.` : sent;
}

function callingModel(step: TimelineStep): string {
  const f = step.facts;
  const parts: string[] = [];
  if (f.resumed) parts.push('The session is resumed.');
  if (f.prompt !== undefined && f.added.length) parts.push(`The prompt is written into state as ${indexList([f.added[f.added.length - 1] as number])}.`);
  if (f.removed.length) parts.push(`Before the call the loop deleted ${indexList(f.removed)} from state.messages.`);
  parts.push(requestClause(f, step));
  for (const tool of f.toolStarts) parts.push(`${tool.name}: ${tool.command} starts while the reply still streams.`);
  return parts.join(' ');
}

function replySentence(t: Timeline, step: TimelineStep, i: number): string {
  const r = step.reply;
  if (!r) return 'A reply arrives.';
  const n = r.toolUses.length;
  const blocks = n ? `${plural(n, 'tool_use block')} (${uses(r.toolUses)})` : 'no tool_use block';
  const history = messagesAt(t, i);
  const where =
    r.index !== null
      ? `The reply arrives as ${indexList([r.index])} with stop_reason ${r.stopReason} and ${blocks}`
      : `The reply arrives with stop_reason ${r.stopReason} and ${blocks}${r.toolUsesFrom === 'tool_start' && n ? ', seen as the tools started' : ''}, but the loop does not append it: state.messages still ends at ${indexList([history.length - 1])}`;
  const flag = r.needsFollowUp === null ? '' : `; needsFollowUp is ${r.needsFollowUp}`;
  const disagree = (r.teaching === 'tools') !== n > 0 ? `; the teaching check (stop_reason == "tool_use") would ${r.teaching === 'tools' ? 'run tools' : 'stop here'}` : '';
  const branch = r.guard ? `; the guard that fires is ${guardText(r.guard)} → ${r.target}` : '';
  return `${where}${flag}${disagree}${branch}.`;
}

function executingTools(t: Timeline, step: TimelineStep, i: number): string {
  const f = step.facts;
  const earlier = new Set(t.tools.filter((x) => x.kind === 'start' && x.step < i).map((x) => x.id));
  const parts = f.toolResults.map((r) => {
    const when = earlier.has(r.id) ? ' (it started while the reply streamed)' : '';
    const wrapped = r.bound ? `bound to tool_use_id ${r.id}` : 'without a tool_use_id';
    return `${r.name}: ${r.command} returns${when}; its output is wrapped into a tool_result ${wrapped}${r.isError ? ' (is_error)' : ''}`;
  });
  const running = f.toolStarts.filter((s) => !f.toolResults.some((r) => r.id === s.id)).map((s) => `${s.name}: ${s.command} starts`);
  const all = [...parts, ...running];
  return all.length ? `The loop runs the tools: ${all.join('; ')}.` : 'The loop waits for the tools of the reply; none returned at this step.';
}

function appending(t: Timeline, step: TimelineStep, i: number): string {
  const f = step.facts;
  const written = t.messages.find((m) => m.step === i && f.added.includes(m.index) && (m.origin === 'tools' || m.origin === 'continuation' || m.origin === undefined));
  const replaced = t.messages.find((m) => m.step === i && f.rewritten.includes(m.index) && m.message.role === 'user');
  const mark = `; transitionReason is ${step.transitionReason}`;
  if (written) return `The loop appends ${describeWrite(written.message, written.index)}${mark}.`;
  if (replaced && f.history.includes(replaced.index)) return `The loop writes ${describeWrite(replaced.message, replaced.index)}, joined to the user message already there${mark}.`;
  if (f.unwritten.length) return `The results of ${f.unwritten.join(', ')} are not appended: state.messages still has ${plural(f.history.length, 'message')}${mark}.`;
  return `Nothing is appended: state.messages keeps its ${plural(f.history.length, 'message')}${mark}.`;
}

/** `messages[2] (1 tool_result block for toolu_1)`, with what is broken in it. */
function describeWrite(message: MessageParam, index: number): string {
  const blocks = typeof message.content === 'string' ? [] : message.content;
  const results = blocks.filter((b) => b.type === 'tool_result');
  const broken = brokenBlocks(message);
  if (broken.length) return `${indexList([index])}, which holds ${broken.length === 1 ? broken[0] : `${broken.length} tool_result blocks without tool_use_id`}`;
  if (!results.length) return `${indexList([index])}, asking the model to go on`;
  const ids = results.map((b) => (b.type === 'tool_result' ? b.tool_use_id : '')).join(', ');
  return `${indexList([index])} (${plural(results.length, 'tool_result block')} for ${ids})`;
}

/** ` ("The working directory has…")`: a message's text, clipped. */
function quote(message: MessageParam): string {
  const text = (typeof message.content === 'string' ? message.content : message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(' ')).replace(/\s+/g, ' ').trim();
  return text ? ` (“${text.length > 80 ? `${text.slice(0, 79)}…` : text}”)` : '';
}

function done(t: Timeline, step: TimelineStep, i: number): string {
  const f = step.facts;
  const invalid = f.historyProblems.length ? ` The history it leaves is invalid: ${f.historyProblems[0]}.` : '';
  const last = [...messagesAt(t, i)].reverse().find((m) => m.message.role === 'assistant');
  const answer = last ? `: the loop hands the text of ${indexList([last.index])} to the user${quote(last.message)}` : '';
  switch (f.guard ?? step.exitReason) {
    case 'reachedMaxTurns':
    case 'max_turns':
      return `The run has made its last allowed model call (turn ${step.turnCount}): it ends in done${exit(step)}.${invalid}`;
    case 'reachedBudget':
    case 'max_budget':
      return `The run's cost passed its budget: it ends in done${exit(step)}.${invalid}`;
    case 'isRefusal':
    case 'refusal':
      return `The model refused (stop_reason refusal): the run ends in done${exit(step)}.${invalid}`;
    case 'isCutByMaxTokens':
    case 'max_tokens':
      return `The reply is still cut by max_tokens after the continuations allowed in a row: the run ends in done${exit(step)}.${invalid}`;
    default:
      return `The run ends in done${exit(step)}${answer}.${invalid}`;
  }
}

function failed(step: TimelineStep): string {
  const f = step.facts;
  if (f.guard === 'isPromptTooLong' || step.exitReason === 'prompt_too_long') return `The API says the prompt is too long; calling again cannot help, so the run ends in failed${exit(step)}.`;
  if (step.exitReason === 'tool_runner_error') return `The tool runner itself crashed; every open tool_use is answered with an error and the run ends in failed${exit(step)}.`;
  return `The model call fails${f.error ? ` (${f.error})` : ''} and cannot be retried, so the run ends in failed${exit(step)}.`;
}
