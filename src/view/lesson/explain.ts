/**
 * What each step says, made only of what the step's records show (facts.ts): the messages written,
 * deleted or left out, the blocks counted, the stop_reason as received, where the loop went, the
 * request and what it adds to the one before. Never the path the loop should have taken: a mistaken
 * run (src/mistakes/) is told as it went. The lines are data (texts/line.ts), in the chapter's words;
 * the machine's names (guards, events) stay in the production layer. test/support/lessonCheck.ts
 * checks every line against the records.
 */
import type { MessageParam } from '../../core/messages.js';
import { messagesAt } from '../timeline/history.js';
import { brokenBlocks, type StepFacts } from '../timeline/facts.js';
import { lessonOf } from './chapter.js';
import { line, type Line } from '../texts/line.js';
import { paragraph } from '../texts/render.js';
import { deltaLine, indices } from './delta.js';
import { reasonOf } from './reasons.js';
import type { Timeline, TimelineStep } from '../timeline/shape.js';

const uses = (list: Array<{ call: string }>) => list.map((u) => u.call).join('; ');

/** The timeline with each step's `say`, `sentence` (its English), `why` and `lesson`: a new timeline, `t` left as it is. */
export function explained(t: Timeline): Timeline {
  return {
    ...t,
    steps: t.steps.map((step, i) => {
      const say = explainStep(t, step, i);
      // The reason reads the step's lesson marks (why.append, why.wholeAgent): it is given the step with its lesson.
      const lessoned = { ...step, lesson: lessonOf(step) };
      return { ...lessoned, say, sentence: paragraph('en', say), why: reasonOf(t, lessoned, i) };
    }),
  };
}

export function explainStep(t: Timeline, step: TimelineStep, i: number): Line[] {
  if (step.kind === 'reply') return replyLines(t, step, i);
  switch (step.state) {
    case 'callingModel':
      return callingModel(step);
    case 'executingTools':
      return executingTools(t, step, i);
    case 'appendingResults':
      return [appending(t, step, i)];
    case 'waitingToRetry':
      return [step.retry ? line('say.retry', { error: step.retry.error, delay: step.retry.delayMs, attempt: step.retry.attempt + 1 }) : line('say.retryUnknown')];
    case 'done':
      return done(t, step, i);
    case 'failed':
      return [failed(step)];
    case 'aborted':
      return [line('say.aborted', { exit: step.exitReason })];
    default:
      return [line('say.enters', { state: step.state })];
  }
}

function requestLines(f: StepFacts, step: TimelineStep): Line[] {
  const r = f.request;
  if (!r) return [line('say.noRequest', { turn: step.turnCount, reason: step.transitionReason })];
  const out = [line('say.request', { number: r.number, count: r.readable, turn: step.turnCount, reason: step.transitionReason })];
  if (r.readable < r.messageCount) out.push(line('say.requestLost', { lost: r.messageCount - r.readable, count: r.messageCount }));
  if (r.number > 1) out.push(r.added.length || r.removed.length ? line('say.delta', { delta: deltaLine(r) }) : line('say.deltaSame', { prev: r.number - 1 }));
  const broken = f.broken.find((b) => b.index < r.readable);
  if (broken) out.push(line('say.requestBroken', { index: broken.index, what: line('what.unbound') }));
  else if (r.problems.length) out.push(line('say.requestInvalid', { problem: r.problems[0] }));
  return out;
}


function callingModel(step: TimelineStep): Line[] {
  const f = step.facts;
  const out: Line[] = [];
  if (f.resumed) out.push(line('say.resumed'));
  if (f.prompt !== undefined && f.added.length) out.push(line('say.prompt', { index: f.added[f.added.length - 1] as number }));
  if (f.removed.length) out.push(line('say.deleted', { list: indices(f.removed) }));
  out.push(...requestLines(f, step));
  for (const tool of f.toolStarts) out.push(line('say.earlyStart', { call: tool.call }));
  return out;
}

function replyLines(t: Timeline, step: TimelineStep, i: number): Line[] {
  const r = step.reply;
  if (!r) return [line('say.replyUnknown')];
  const n = r.toolUses.length;
  const out: Line[] = [];
  if (r.index !== null) out.push(line('say.reply', { index: r.index, stopReason: String(r.stopReason), count: n, uses: uses(r.toolUses) }));
  else {
    const last = messagesAt(t, i).length - 1;
    out.push(line('say.replyNotAppended', { stopReason: String(r.stopReason), count: n, uses: uses(r.toolUses), seen: r.toolUsesFrom === 'tool_start' && n > 0, last }));
  }
  if (r.needsFollowUp !== null) out.push(line('say.flag', { value: r.needsFollowUp }));
  if ((r.teaching === 'tools') !== n > 0) out.push(line('say.teachingDisagrees', { runs: r.teaching === 'tools' }));
  if (r.target === 'executingTools') out.push(line('say.goesOn', { count: n }));
  else if (r.target === 'done') out.push(line('say.stops'));
  else if (r.target === 'appendingResults') out.push(line('say.continues'));
  return out;
}

function executingTools(t: Timeline, step: TimelineStep, i: number): Line[] {
  const f = step.facts;
  const earlier = new Set(t.tools.filter((x) => x.kind === 'start' && x.step < i).map((x) => x.id));
  const out = f.toolResults.map((r) =>
    line(r.bound ? 'say.toolReturns' : 'say.toolReturnsUnbound', { call: r.call, id: r.id, early: earlier.has(r.id), error: r.isError }),
  );
  for (const s of f.toolStarts) if (!f.toolResults.some((r) => r.id === s.id)) out.push(line('say.toolStarts', { call: s.call }));
  return out.length ? out : [line('say.toolsNone')];
}

function appending(t: Timeline, step: TimelineStep, i: number): Line {
  const f = step.facts;
  const written = t.messages.find((m) => m.step === i && f.added.includes(m.index) && (m.origin === 'tools' || m.origin === 'continuation' || m.origin === undefined));
  const replaced = t.messages.find((m) => m.step === i && f.rewritten.includes(m.index) && m.message.role === 'user');
  const reason = step.transitionReason;
  if (written) return line('say.appends', { what: describeWrite(written.message, written.index), reason });
  if (replaced && f.history.includes(replaced.index)) return line('say.joins', { what: describeWrite(replaced.message, replaced.index), reason });
  if (f.unwritten.length) return line('say.notAppended', { ids: f.unwritten.join(', '), count: f.history.length, reason });
  return line('say.nothingAppended', { count: f.history.length, reason });
}

/** `messages[2] (1 tool_result block for toolu_1)`, with what is broken in it. */
function describeWrite(message: MessageParam, index: number): Line {
  const blocks = typeof message.content === 'string' ? [] : message.content;
  const results = blocks.filter((b) => b.type === 'tool_result');
  const broken = brokenBlocks(message);
  if (broken.length) return line('write.unbound', { index, count: broken.length });
  if (!results.length) return line('write.goOn', { index });
  const ids = results.map((b) => (b.type === 'tool_result' ? b.tool_use_id : '')).join(', ');
  return line('write.results', { index, count: results.length, ids });
}

/** A message's text, clipped. */
function quote(message: MessageParam): string {
  const text = (typeof message.content === 'string' ? message.content : message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(' ')).replace(/\s+/g, ' ').trim();
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function done(t: Timeline, step: TimelineStep, i: number): Line[] {
  const f = step.facts;
  const invalid = f.historyProblems.length ? [line('say.leavesInvalid', { problem: f.historyProblems[0] })] : [];
  const last = [...messagesAt(t, i)].reverse().find((m) => m.message.role === 'assistant');
  const exit = step.exitReason;
  switch (f.guard ?? step.exitReason) {
    case 'reachedMaxTurns':
    case 'max_turns':
      return [line('say.maxTurns', { turn: step.turnCount, exit }), ...invalid];
    case 'reachedBudget':
    case 'max_budget':
      return [line('say.budget', { exit }), ...invalid];
    case 'isRefusal':
    case 'refusal':
      return [line('say.refusal', { exit }), ...invalid];
    case 'isCutByMaxTokens':
    case 'max_tokens':
      return [line('say.maxTokens', { exit }), ...invalid];
    default:
      return [last ? line('say.answer', { exit, index: last.index, quote: quote(last.message) }) : line('say.ends', { exit }), ...invalid];
  }
}

function failed(step: TimelineStep): Line {
  const f = step.facts;
  const exit = step.exitReason;
  if (f.guard === 'isPromptTooLong' || step.exitReason === 'prompt_too_long') return line('say.tooLong', { exit });
  if (step.exitReason === 'tool_runner_error') return line('say.runnerCrashed', { exit });
  return line('say.modelFailed', { exit, error: f.error ?? '' });
}
