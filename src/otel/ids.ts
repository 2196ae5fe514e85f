/**
 * Ids a run's spans take instead of random ones: a durable run's attempts are each a run of their own, and the spans a
 * child invocation hangs under must be the same on every attempt (durable/traceIds.ts chooses them). The tracer's
 * provider takes them when its id generator is `chosenIds(…)` (the CLI's and the worker's are: cli/setup/telemetry.ts);
 * another provider's spans keep their random ids.
 */
import type { ToolUseBlock } from '../core/messages.js';

/** What a tracer provider asks for its ids (OpenTelemetry's `IdGenerator`). */
export interface IdSource {
  generateTraceId(): string;
  generateSpanId(): string;
}

/** The ids a run chooses for some of its spans (`RunTracing.ids`). */
export interface StableIds {
  /** The trace id of the run's span when it has no parent (a trace of its own), instead of a random one. */
  traceId?: string;
  /** The span id of a tool call's `execute_tool` span, or undefined for a random one. */
  toolSpanId?(block: ToolUseBlock): string | undefined;
}

interface Chosen {
  traceId?: string | undefined;
  spanId?: string | undefined;
}

let next: Chosen | undefined;

/** An id generator for a tracer provider: the ids chosen for the span being started (`withIds`), else `random`'s. */
export function chosenIds(random: IdSource): IdSource {
  return {
    generateTraceId: () => next?.traceId ?? random.generateTraceId(),
    generateSpanId: () => next?.spanId ?? random.generateSpanId(),
  };
}

/** Runs `start` (a tracer's `startSpan`, which asks for its ids at once) with `ids` chosen for the span it starts. */
export function withIds<T>(ids: Chosen, start: () => T): T {
  if (ids.traceId === undefined && ids.spanId === undefined) return start();
  next = ids;
  try {
    return start();
  } finally {
    next = undefined;
  }
}
