/**
 * The loop's two actors made durable: the model call and each tool run become journalled steps
 * (Restate's `ctx.run`). On a replay after a worker died, a step that completed returns what the
 * journal recorded instead of running again; a step that never completed runs again, except a
 * tool that may have had effects: it is answered "interrupted" (see `journalledTools`).
 *
 * Replay needs the same steps in the same order, so in a durable run:
 * - tools start only once the reply is complete (no streaming tool start), one at a time;
 * - nothing but journalled values decides what the machine does (the seed comes from `ctx.rand`,
 *   the time from the journal: see `JournalClock`).
 */
import type { ModelCall, ModelErrorKind, ModelReply } from '../core/model.js';
import { ModelError } from '../core/model.js';
import { isModelError } from '../core/run.js';
import type { Tool, ToolOutput } from '../core/tool.js';

/** What a durable run needs of Restate's context: journalled steps. */
export interface Journal {
  run<T>(name: string, action: () => Promise<T>): PromiseLike<T>;
}

/** The answer to a tool that had started when its worker died, and may have had effects. */
export const INTERRUPTED_BY_WORKER = 'interrupted: the worker running this tool stopped before it finished (not run again)';

/**
 * The run's time as the journal knows it: the moment the latest step completed. Records and
 * durations use it, so that a replay computes exactly what the first execution did.
 */
export interface JournalClock {
  now: number;
}

/** A model error as journalled data. */
interface JournalledError {
  kind: ModelErrorKind;
  message: string;
  details: ModelError['details'];
}

type ModelStep = { at: number; reply: ModelReply } | { at: number; error: JournalledError };

function toJournalledError(error: unknown): JournalledError {
  if (isModelError(error)) return { kind: error.kind, message: error.message, details: { ...error.details } };
  return { kind: 'unknown', message: error instanceof Error ? error.message : String(error), details: {} };
}

/**
 * The model call as a journalled step. A failed call is journalled too (as data, and thrown again
 * outside the step): the machine decides about retries, and a replay takes the same decisions.
 * The request is reported before the step, so a replay reports it as well; text deltas and
 * streamed tool_use blocks are not passed on (a replayed reply has none).
 */
export function journalledModel(journal: Journal, model: ModelCall, clock: JournalClock): ModelCall {
  return async (input, signal) => {
    input.onRequest?.(input.request);
    const step = await journal.run<ModelStep>(`model call (turn ${input.turnCount})`, async () => {
      try {
        const reply = await model({ request: input.request, turnCount: input.turnCount, onToolUse: () => {} }, signal);
        return { at: Date.now(), reply };
      } catch (error) {
        return { at: Date.now(), error: toJournalledError(error) };
      }
    });
    clock.now = step.at;
    if ('error' in step) throw new ModelError(step.error.kind, step.error.message, step.error.details);
    return step.reply;
  };
}

/** Whether a call is read-only (concurrency-safe): such a call may run again after a crash. */
function readOnly(tool: Tool, input: unknown): boolean {
  try {
    return tool.isConcurrencySafe?.(input) ?? false;
  } catch {
    return false;
  }
}

/** Never throws: a step that throws is retried by Restate, and the tool would run again. */
async function runSafely(tool: Tool, input: unknown, context: Parameters<Tool['run']>[1]): Promise<ToolOutput> {
  try {
    return await tool.run(input, context);
  } catch (error) {
    return { isError: true, content: `Tool "${tool.name}" failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * The tools with each run a journalled step. A call that is not read-only first journals that it
 * starts; a replay that finds that mark but no result knows the call was cut off while it ran
 * (its worker died) and answers it `INTERRUPTED_BY_WORKER` instead of running it again. A
 * read-only call has no mark: cut off, it simply runs again.
 *
 * Every wrapped tool says it is not concurrency-safe, so the executor runs calls one at a time,
 * after the reply is complete: the journal then holds the same steps in the same order on every
 * replay.
 */
export function journalledTools(journal: Journal, tools: readonly Tool[], clock: JournalClock): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    isConcurrencySafe: () => false,
    ...(tool.prepare ? { prepare: () => tool.prepare?.() } : {}),
    async run(input, context) {
      let output: { at: number; output: ToolOutput };
      if (readOnly(tool, input)) {
        output = await journal.run(`tool ${tool.name} (read-only)`, async () => ({ output: await runSafely(tool, input, context), at: Date.now() }));
      } else {
        // Set only when this execution journals the start itself (a replay reads it instead).
        let startedHere = false;
        await journal.run(`tool ${tool.name} starts`, async () => {
          startedHere = true;
          return true;
        });
        output = await journal.run(`tool ${tool.name}`, async () => ({
          output: startedHere ? await runSafely(tool, input, context) : { isError: true, content: INTERRUPTED_BY_WORKER },
          at: Date.now(),
        }));
      }
      clock.now = output.at;
      return output.output;
    },
  }));
}
