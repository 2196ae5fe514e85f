/**
 * Structured output (`--json-schema SCHEMA`, the Agent SDK's `outputFormat: { type: 'json_schema', schema }`), as
 * Claude Code 2.1.197 does it (read from its bundle and run against the local Messages API server):
 * - the model is offered a `StructuredOutput` tool whose input schema is SCHEMA; its input is checked against SCHEMA
 *   (Ajv, every error): a mismatch is an is_error result (`Output does not match required schema: /n: must be
 *   number`), which the model sees and may answer with another call;
 * - a valid call ends the turn: no model call follows its result; the result line's `structured_output` holds the
 *   input and its `result` the input as JSON text;
 * - a turn that ends without any call gets one reminder (a synthetic user message) and goes on once;
 * - after MAX_STRUCTURED_OUTPUT_RETRIES calls (default 5) without a valid one the turn ends with an
 *   `error_max_structured_output_retries` result.
 * agentloop ends the turn by aborting the run before its next model call (nothing is sent): the history stays valid
 * (it ends with the tool result), the transcript records the run as aborted, and the result says what Claude Code's
 * says.
 */
import type { RunHooks } from '../../core/hooks.js';
import type { MessageParam } from '../../core/messages.js';
import type { Tool, ToolOutput } from '../../core/tool.js';
import type { RunResult } from '../../run/runAgent.js';
import type { Question } from '../../transcript/records.js';
import { newAjv, type Ajv, type JsonSchema } from '../commandLine/jsonSchemaValue.js';
import { withRun, type RunSetup } from './runSetup.js';

export const STRUCTURED_TOOL = 'StructuredOutput';
/** The synthetic user message of a turn that ended without a call (Claude Code's words). */
export const REMINDER = `[structured-output-enforce] You MUST call the ${STRUCTURED_TOOL} tool to complete this request. Call this tool now.`;
const DESCRIPTION =
  'Use this tool to return your final response in the requested structured format. You MUST call this tool exactly once at the end of your response to provide the structured output.';

export { jsonSchema, type JsonSchema } from '../commandLine/jsonSchemaValue.js';

import type { StructuredOutcome } from '../printers/structuredLines.js';

export type { StructuredOutcome } from '../printers/structuredLines.js';

type Run = (question: Question | null, history: MessageParam[], turnCount: number | undefined) => Promise<RunResult>;

/** Maximum calls of the tool in one turn (Claude Code's MAX_STRUCTURED_OUTPUT_RETRIES, default 5). */
export function maxAttempts(env: NodeJS.ProcessEnv): number {
  const given = Number.parseInt(env.MAX_STRUCTURED_OUTPUT_RETRIES ?? '', 10);
  return Number.isSafeInteger(given) && given > 0 ? given : 5;
}

/** One turn (one question) that asks for structured output. */
export class StructuredTurn {
  private given: { value: unknown } | undefined;
  private calls = 0;
  private reminded = false;
  private readonly stop = new AbortController();
  private readonly check: ReturnType<Ajv['compile']>;
  readonly tool: Tool;

  constructor(
    schema: JsonSchema,
    private readonly max: number,
  ) {
    this.check = newAjv().compile(schema);
    this.tool = { name: STRUCTURED_TOOL, description: DESCRIPTION, inputSchema: schema as Tool['inputSchema'], isConcurrencySafe: () => true, run: async (input) => this.take(input) };
  }

  private take(input: unknown): ToolOutput {
    this.calls += 1;
    if (!this.check(input)) {
      const errors = (this.check.errors ?? []).map((e) => `${e.instancePath || 'root'}: ${e.message ?? ''}`).join(', ');
      return { content: `Output does not match required schema: ${errors}`, isError: true };
    }
    this.given = { value: input };
    return { content: 'Structured output provided successfully', isError: false };
  }

  /** Done: a valid call came, or the calls ran out. */
  private get settled(): boolean {
    return this.given !== undefined || this.calls >= this.max;
  }

  /**
   * The setup with the tool offered and let through the permission gate (it only takes the model's answer), and the
   * run stopped before the model call that would follow a settled turn.
   */
  setup<T extends RunSetup>(setup: T): T {
    const inner = setup.run.hooks;
    const hooks: RunHooks = {
      ...inner,
      beforeToolCall: (call) => (call.block.name === STRUCTURED_TOOL ? { action: 'allow' } : inner?.beforeToolCall?.(call)),
      transformContext: async (messages, info) => {
        if (this.settled) {
          this.stop.abort();
          throw new Error('the structured output is settled: the turn ends');
        }
        return inner?.transformContext ? inner.transformContext(messages, info) : (messages as MessageParam[]);
      },
    };
    return withRun(setup, { hooks, addTools: [...(setup.run.addTools ?? []), this.tool] });
  }

  /** The run's signal: the caller's, or this turn's end. */
  signal(outer: AbortSignal): AbortSignal {
    return AbortSignal.any([outer, this.stop.signal]);
  }

  /** `run` with the reminder when a turn ends with no call (`remind` shows it), and the result of a settled turn. */
  around(run: Run, remind: (text: string) => void): Run {
    return async (question, history, turnCount) => {
      let result = await run(question, history, turnCount);
      if (result.context.exitReason === 'completed' && this.calls === 0 && !this.reminded) {
        this.reminded = true;
        remind(REMINDER);
        result = await run(REMINDER, result.context.messages, result.context.turnCount + 1);
      }
      return this.given && this.stop.signal.aborted ? { ...result, text: JSON.stringify(this.given.value), context: { ...result.context, exitReason: 'completed' } } : result;
    };
  }

  outcome(): StructuredOutcome {
    if (this.given) return this.given;
    if (this.stop.signal.aborted) return { failure: `Failed to provide valid structured output after ${this.max} attempts` };
    return undefined;
  }
}
