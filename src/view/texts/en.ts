/**
 * The lesson in English: every text the viewer shows, by key (line.ts). Each is a whole sentence or
 * phrase; the values it names come in `p`. zh.ts has the same keys (a test fails when one is missing).
 * The checker (test/support/lessonCheck.ts) reads these sentences: keep their wording in step with it.
 */
import type { Params } from './params.js';
import { enPage } from './enPage.js';

type P = Params & Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const n = (count: number, one: string, other = `${one}s`) => `${count} ${count === 1 ? one : other}`;
const reasonText = (p: P) => (p.reason ? `, transitionReason ${p.reason}` : '');
const exitText = (p: P) => (p.exit ? ` (exitReason ${p.exit})` : '');
const blocks = (p: P) => (p.count ? `${n(p.count, 'tool_use block')} (${p.uses})` : 'no tool_use block');

export const en = {
  // What a step says (explain.ts).
  'say.noRequest': (p: P) => `The loop is to call the model (turn ${p.turn}${reasonText(p)}); no request of this call is on record.`,
  'say.request': (p: P) => `The loop sends request ${p.number}, state.messages (${n(p.count, 'message')}) and the tool definitions, to the model (turn ${p.turn}${reasonText(p)}).`,
  'say.requestLost': (p: P) => `${p.lost} of the ${p.count} messages it carried could not be read from the transcript.`,
  'say.delta': (p: P) => `That is: ${p.delta}.`,
  'say.deltaSame': (p: P) => `It carries the same messages as request ${p.prev}.`,
  'say.requestBroken': (p: P) => `It carries messages[${p.index}], which holds ${p.what}.`,
  'say.requestInvalid': (p: P) => `The history it sends is invalid: ${p.problem}.`,
  'say.resumed': () => 'The session is resumed.',
  'say.prompt': (p: P) => `The prompt is written into state as messages[${p.index}].`,
  'say.deleted': (p: P) => `Before the call the loop deleted ${p.list} from state.messages.`,
  'say.earlyStart': (p: P) => `${p.call} starts while the reply still streams.`,
  'say.replyUnknown': () => 'A reply arrives.',
  'say.reply': (p: P) => `The reply arrives as messages[${p.index}] with stop_reason ${p.stopReason} and ${blocks(p)}.`,
  'say.replyNotAppended': (p: P) =>
    `The reply arrives with stop_reason ${p.stopReason} and ${blocks(p)}${p.seen ? ', seen as the tools started' : ''}, but the loop does not append it: state.messages still ends at messages[${p.last}].`,
  'say.flag': (p: P) => `needsFollowUp is ${p.value}.`,
  'say.teachingDisagrees': (p: P) => `The teaching check (stop_reason == "tool_use") would ${p.runs ? 'run tools' : 'stop here'}, unlike the tool_use blocks.`,
  'say.goesOn': (p: P) => `So the loop goes on: it runs the ${p.count === 1 ? 'tool' : 'tools'}.`,
  'say.stops': () => 'So the loop stops here.',
  'say.continues': () => 'So the loop asks the model to go on (a production path).',
  'say.toolReturns': (p: P) => `${p.call} returns${p.early ? ' (it started while the reply streamed)' : ''}; its output is wrapped into a tool_result bound to tool_use_id ${p.id}${p.error ? ' (is_error)' : ''}.`,
  'say.toolReturnsUnbound': (p: P) => `${p.call} returns${p.early ? ' (it started while the reply streamed)' : ''}; its output is wrapped into a tool_result without a tool_use_id${p.error ? ' (is_error)' : ''}.`,
  'say.toolStarts': (p: P) => `${p.call} starts.`,
  'say.toolsNone': () => 'The loop waits for the tools of the reply; none returned at this step.',
  'say.appends': (p: P) => `The loop appends ${p.what}; transitionReason is ${p.reason}.`,
  'say.joins': (p: P) => `The loop writes ${p.what}, joined to the user message already there; transitionReason is ${p.reason}.`,
  'say.notAppended': (p: P) => `The results of ${p.ids} are not appended: state.messages still has ${n(p.count, 'message')}; transitionReason is ${p.reason}.`,
  'say.nothingAppended': (p: P) => `Nothing is appended: state.messages keeps its ${n(p.count, 'message')}; transitionReason is ${p.reason}.`,
  'write.unbound': (p: P) => `messages[${p.index}], which holds ${p.count === 1 ? 'a tool_result without tool_use_id' : `${p.count} tool_result blocks without tool_use_id`}`,
  'write.goOn': (p: P) => `messages[${p.index}], asking the model to go on`,
  'write.results': (p: P) => `messages[${p.index}] (${n(p.count, 'tool_result block')} for ${p.ids})`,
  'what.unbound': () => 'a tool_result without tool_use_id',
  'say.retry': (p: P) => `The model call failed (${p.error}); it can be retried, so the loop waits ${p.delay} ms before attempt ${p.attempt}.`,
  'say.retryUnknown': () => 'The model call failed and can be retried: the loop waits before calling again.',
  'say.aborted': (p: P) => `The run was interrupted: running tools are stopped and answered, so the history stays valid${exitText(p)}.`,
  'say.enters': (p: P) => `The machine enters ${p.state}.`,
  'say.leavesInvalid': (p: P) => `The history it leaves is invalid: ${p.problem}.`,
  'say.maxTurns': (p: P) => `The run has made its last allowed model call (turn ${p.turn}): it ends in done${exitText(p)}.`,
  'say.budget': (p: P) => `The run's cost passed its budget: it ends in done${exitText(p)}.`,
  'say.refusal': (p: P) => `The model refused (stop_reason refusal): the run ends in done${exitText(p)}.`,
  'say.maxTokens': (p: P) => `The reply is still cut by max_tokens after the continuations allowed in a row: the run ends in done${exitText(p)}.`,
  'say.answer': (p: P) => `The run ends in done${exitText(p)}: the loop hands the text of messages[${p.index}] to the user${p.quote ? ` (“${p.quote}”)` : ''}.`,
  'say.ends': (p: P) => `The run ends in done${exitText(p)}.`,
  'say.tooLong': (p: P) => `The API says the prompt is too long; calling again cannot help, so the run ends in failed${exitText(p)}.`,
  'say.runnerCrashed': (p: P) => `The tool runner itself crashed; every open tool_use is answered with an error and the run ends in failed${exitText(p)}.`,
  'say.modelFailed': (p: P) => `The model call fails${p.error ? ` (${p.error})` : ''} and cannot be retried, so the run ends in failed${exitText(p)}.`,
  delta: (p: P) =>
    !p.added && !p.changed && !p.deleted
      ? `request ${p.number}: the same messages as request ${p.prev}`
      : `request ${p.number} = request ${p.prev}${[p.added ? ` + ${p.added}` : '', p.changed ? `${p.added ? ',' : ''} with ${p.changed} rewritten` : '', p.deleted ? `${p.added || p.changed ? ',' : ''} with deleted ${p.deleted}` : ''].join('')}`,
  'delta.first': () => 'request 1: the first',

  // The chapter's reasons (reasons.ts), one where each idea shows.
  'why.state': () => 'Why: state holds more than the request: turnCount and transitionReason stay in the loop; the request body carries messages (with system and the tool definitions).',
  'why.onlyAsks': () => 'Why: the model only asks. A tool_use block is its intent; it runs nothing itself. Running the tool and writing back the tool_result is the harness’s job.',
  'why.streaming': () => 'Why: in a stream, stop_reason comes last and may not say tool_use while a tool_use block is in the reply; so production (Claude Code) goes on when a tool_use block arrives (needsFollowUp), not by stop_reason.',
  'why.streamingCard': () => 'Why the two checks: in a stream stop_reason comes last, so production follows the tool_use blocks as they arrive.',
  'why.noToolUse': () => 'Why: no tool_use block, nothing to run: the chapter’s loop stops. This is its only exit.',
  'why.bound': () => 'Why: the tool_use_id binds the tool_result to the call it answers; that is how the model tells which output is which.',
  'why.append': () => 'Why: what is not in messages, the model never sees. The tool_result must be written back before the next call.',
  'why.memory': () => 'Why: the model remembers nothing between calls. It knows what happened only because the whole messages[] goes again in this request.',
  'why.forgets': () => 'Why: the model remembers nothing between calls. What this request does not carry, it will never know.',
  'why.wholeAgent': () => 'Why: this loop plus one bash tool is the whole agent. Later chapters add to the loop; the loop stays.',

  // The chapter's steps (lesson.ts).
  'title.asks': () => 'The model asks for a tool',
  'title.answers': () => 'The model answers',
  'title.first': () => 'Prompt → messages → model',
  'title.calls': () => 'The loop calls the model',
  'title.callsAgain': () => 'The loop calls the model again',
  'title.productionCall': (p: P) => `Production path: call again (${p.reason})`,
  'title.runs': () => 'The loop runs the tool',
  'title.append': () => 'Results go back into messages',
  'title.productionPath': (p: P) => `Production path: ${p.reason}`,
  'title.answer': () => 'The answer goes to the user',
  'title.productionExit': (p: P) => `Production exit: ${p.exit}`,
  'title.retry': () => 'Production path: wait, then retry',
  'title.compacting': () => 'Production path: compact the history (the context window is nearly full)',

  ...enPage,
};
