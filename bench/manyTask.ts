/**
 * The task of the many-at-once benchmark (bench/many.ts): each run asks for one read-only tool call (`lookup`), then
 * answers. The reply is computed from the history alone, so that any number of runs share one server.
 *
 * The first reply of each measured run (its prompt `MANY-TASK i`, i ≥ 0) waits behind a gate until the benchmark opens
 * it: so all N runs are in flight at once when what they hold is measured, however long a loaded machine takes to
 * start them; then every reply comes after the server's delay (a model's time to first token).
 */
import type { ReplyStep, RequestBody, Step } from '../test/support/messagesServer.js';

export const MANY_TOOL = 'lookup';
/** The model's time to its first frame, every reply. */
export const REPLY_DELAY_MS = 1000;

/** The gate of one child's runs: first requests seen, and its opening. */
class Gate {
  seen = 0;
  private opened = false;
  private waiting: Array<() => void> = [];
  wait(): Promise<void> {
    this.seen++;
    return this.opened ? Promise.resolve() : new Promise((resolve) => this.waiting.push(resolve));
  }
  open(): void {
    this.opened = true;
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

let gate = new Gate();

/** A new gate, closed (for the next child's runs); the old one opens. */
export function resetGate(): void {
  gate.open();
  gate = new Gate();
}

export function openGate(): void {
  gate.open();
}

/** First requests of measured runs seen since the gate was reset. */
export function seenAtGate(): number {
  return gate.seen;
}

function promptOf(body: RequestBody): string {
  const first = body.messages[0]?.content;
  return typeof first === 'string' ? first : JSON.stringify(first ?? '');
}

export async function manyStep(body: RequestBody): Promise<ReplyStep> {
  const last = body.messages.at(-1);
  const answered = Array.isArray(last?.content) && last.content.some((b) => b.type === 'tool_result');
  if (answered) return { content: [{ type: 'text', text: 'The value is there. MANY-DONE' }], stop_reason: 'end_turn' };
  const index = Number(/MANY-TASK (-?\d+)/.exec(promptOf(body))?.[1] ?? -1);
  if (index >= 0) await gate.wait();
  return {
    content: [
      { type: 'text', text: 'Let me look it up.' },
      { type: 'tool_use', id: `toolu_many_${Math.random().toString(36).slice(2, 12)}`, name: MANY_TOOL, input: { key: 'alpha' } },
    ],
    stop_reason: 'tool_use',
  };
}

export const manyStepFn: Step = (body) => manyStep(body);
