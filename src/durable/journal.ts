/**
 * The loop's two actors made durable: the model call and each tool run become journalled steps
 * (Restate's `ctx.run`, as long steps with a heartbeat: steps.ts). On a replay after a worker died,
 * a step that completed returns what the journal recorded instead of running again; a step that
 * never completed runs again, except a tool that may have had effects: it is answered
 * "interrupted" (see `journalledTools`).
 *
 * Replay needs the same steps in the same order, so in a durable run nothing but journalled values
 * decides what the machine does:
 * - tools start only once the reply is complete (no streaming tool start), one at a time, in the
 *   reply's order;
 * - whether a call is read-only is decided once, when its start is journalled, and read back from
 *   the journal after (the bash tool's answer depends on whether its shell parser has loaded);
 * - the seed comes from `ctx.rand`, the time from the journal (`JournalClock`), and the waits
 *   before retries are journalled sleeps (`journalTimers`): a replay does not wait them again.
 */
import type { ModelCall, ModelErrorKind, ModelReply } from '../core/model.js';
import { ModelError } from '../core/model.js';
import { noRedaction, type Redactor } from '../core/redact.js';
import { isModelError } from '../core/outcome.js';
import type { Tool, ToolOutput } from '../core/tool.js';
import { longSteps, type Journal } from './steps.js';

export type { Journal } from './steps.js';

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

type ModelOutcome = { reply: ModelReply } | { error: JournalledError };

function toJournalledError(error: unknown): JournalledError {
  if (isModelError(error)) return { kind: error.kind, message: error.message, details: { ...error.details } };
  return { kind: 'unknown', message: error instanceof Error ? error.message : String(error), details: {} };
}

/** The steps of one attempt of a run: both actors share the count of long steps. */
export interface DurableSteps {
  journal: Journal;
  clock: JournalClock;
  longStep: ReturnType<typeof longSteps>;
}

export function durableSteps(journal: Journal, clock: JournalClock, heartbeatMs?: number): DurableSteps {
  return { journal, clock, longStep: longSteps(journal, heartbeatMs) };
}

/**
 * The model call as a journalled step. A failed call is journalled too (as data, and thrown again
 * outside the step): the machine decides about retries, and a replay takes the same decisions. A
 * call cut off with its worker is simply asked again. The request is reported before the step, so
 * a replay reports it as well; text deltas and streamed tool_use blocks are not passed on (a
 * replayed reply has none).
 */
/** `redactor`: the journal gets the reply with the run's secrets cut (Restate keeps it; a replay reads the same). */
export function journalledModel(steps: DurableSteps, model: ModelCall, redactor: Redactor = noRedaction): ModelCall {
  return async (input, signal) => {
    input.onRequest?.(input.request);
    const call = async (): Promise<ModelOutcome> => {
      try {
        return { reply: redactor.value(await model({ request: input.request, turnCount: input.turnCount, onToolUse: () => {} }, signal)) };
      } catch (error) {
        return { error: toJournalledError(error) };
      }
    };
    const step = await steps.longStep<ModelOutcome>({ name: `model call (turn ${input.turnCount})`, action: call, ifAbsent: 'start' });
    steps.clock.now = step.at;
    if ('error' in step.value) throw new ModelError(step.value.error.kind, step.value.error.message, step.value.error.details);
    return step.value.reply;
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
 * The tools with each call journalled in two steps. First its start, with the decision whether it
 * is read-only: a replay reads that decision instead of asking the tool again. Then its result (a
 * long step). A replay that finds the start but no result, on a worker that does not hold the
 * call, knows the call was cut off while it ran: a read-only call simply runs again; any other is
 * answered `INTERRUPTED_BY_WORKER` instead of running again (it may have had effects). The result is
 * journalled with the run's secrets cut (`redactor`).
 *
 * Every wrapped tool says it is not concurrency-safe, so the executor runs calls one at a time,
 * after the reply is complete: the journal then holds the same steps in the same order on every
 * replay. The rest of the tool's contract (its public name, display, read-only check, permission, span attributes:
 * core/tool.ts) is kept, so that hooks, the gate and the outputs see the same tool as in a local run.
 */
export function journalledTools(steps: DurableSteps, tools: readonly Tool[], redactor: Redactor = noRedaction): Tool[] {
  return tools.map((tool) => ({
    ...tool,
    isConcurrencySafe: () => false,
    // How the call is named, shown and matched by rules (a decision of permissions.ts is journalled before the start).
    ...(tool.publicName !== undefined ? { publicName: tool.publicName } : {}),
    // Read by the permission gate only, inside its journalled step: a replay reads the decision.
    ...(tool.isReadOnly ? { isReadOnly: (input: unknown) => tool.isReadOnly?.(input) ?? false } : {}),
    ...(tool.display ? { display: tool.display } : {}),
    ...(tool.permission ? { permission: tool.permission } : {}),
    ...(tool.prepare ? { prepare: (run) => tool.prepare?.(run) } : {}),
    async run(input, context) {
      // Set only when this execution journals the start itself (a replay reads it instead).
      let startedHere = false;
      const start = await steps.journal.run(`tool ${tool.name} starts`, async () => {
        startedHere = true;
        return { readOnly: readOnly(tool, input) };
      });
      const step = await steps.longStep<ToolOutput>({
        name: `tool ${tool.name}`,
        action: async () => redactor.value(await runSafely(tool, input, context)),
        ifAbsent: start.readOnly || startedHere ? 'start' : { value: { isError: true, content: INTERRUPTED_BY_WORKER } },
      });
      steps.clock.now = step.at;
      return step.value;
    },
  }));
}

/**
 * The machine's timers (the waits before retries) as journalled sleeps, for `runAgent`'s `clock`:
 * a replay that finds a wait elapsed goes on at once.
 */
export function journalTimers(journal: Journal) {
  let next = 0;
  const cleared = new Set<number>();
  return {
    setTimeout(fn: () => void, ms: number): number {
      const id = ++next;
      Promise.resolve(journal.sleep(Math.max(0, Math.round(ms)))).then(
        () => {
          if (!cleared.delete(id)) fn();
        },
        () => {}, // the attempt ended: a later one waits again, from the journal
      );
      return id;
    },
    clearTimeout(id: number): void {
      cleared.add(id);
    },
  };
}
