/**
 * Writes a run to its session transcript as it goes. The recorder only consumes the `RunEvent`s
 * of `runAgent` (pass `recorder.onEvent` as, or inside, `onEvent`): the machine knows nothing of it.
 */
import { randomUUID } from 'node:crypto';
import { CACHED_TAIL, messageCacheMarks } from '../anthropic/cache.js';
import { textOf } from '../history/messages.js';
import type { RunEvent } from '../core/events.js';
import type { AgentContext } from '../machine/context.js';
import { TRANSCRIPT_VERSION, type PromptRecord, type Question, type SessionRecord } from './records.js';
import type { RestoredConversation } from './resume.js';
import { TranscriptWriter } from './store.js';

/** What the recorder writes of a finished run (runAgent's `RunResult` is one). */
export interface FinishedRun {
  state: string;
  context: AgentContext;
  durationMs: number;
}

export interface SessionRecorder {
  readonly id: string;
  readonly path: string;
  /** Set when a write failed: recording stopped there, the run went on. */
  readonly failure: Error | undefined;
  /**
   * Records a question of the user, before its run starts: from then on a kill loses nothing of
   * it (resume.ts asks it again). Recording the same text again before a message is written does
   * nothing, so the CLI can record it the moment it is known and runAgent again when it starts.
   */
  prompt(question: Question): void;
  /**
   * Records what a resume found and the messages its repair added, and the prompt the resumed
   * run starts with (if any), in one write.
   */
  resumed(conversation: RestoredConversation, prompt?: Question | null): void;
  /**
   * Records a run event: the records of one step of the run go out in one write when the step
   * ends (a microtask later), a `tool_start` at once (the tool starts right after it).
   */
  onEvent(event: RunEvent): void;
  /** Writes the records of the step that runs now, without waiting for its end. */
  flush(): void;
  /** Records how a run ended (a REPL session has one per question). */
  finish(result: FinishedRun): void;
  close(): void;
}

export interface RecorderOptions {
  /** Flush each tick's records to the disk with fsync (default true). */
  durable?: boolean;
  /** Called once when a write fails (disk full, file removed); recording stops. */
  onError?: (error: Error) => void;
  now?: () => Date;
  /** Every record goes through it before it is written (the writer's one choke point): no secret in the transcript. */
  redactor?: import('../core/redact.js').Redactor;
}

/** The session a new one is forked from (`--fork-session`): its id and its history, restored. */
export interface ForkSource {
  id: string;
  conversation: RestoredConversation;
}

/**
 * Starts the transcript of a new session; with `prompt`, the first question is in the same write
 * as the header, so no transcript exists without it. With `fork`, the history of that session is
 * copied into the new transcript in the same write (as a resume of it, which it is).
 */
export function startSession(
  home: string,
  session: { cwd: string; model: string; id?: string; prompt?: Question | null; fork?: ForkSource; label?: string },
  options: RecorderOptions = {},
): SessionRecorder {
  const now = options.now ?? (() => new Date());
  const id = session.id ?? randomUUID();
  const createdAt = now().toISOString();
  const prompt = session.prompt ?? undefined;
  const fork = session.fork;
  const writer = TranscriptWriter.create(
    home,
    { type: 'session', version: TRANSCRIPT_VERSION, id, cwd: session.cwd, createdAt, model: session.model, ...(fork ? { forkedFrom: fork.id } : {}), ...(session.label ? { label: session.label } : {}) },
    { durable: options.durable, redactor: options.redactor },
    ...(fork ? resumeDrafts(fork.conversation, fork.id) : []).map((draft) => ({ ...draft, at: createdAt }) as SessionRecord),
    ...(prompt !== undefined ? [{ ...promptDraft(prompt), at: createdAt }] : []),
  );
  return createRecorder(id, writer, options, prompt);
}

/** The `prompt` record of a question, without its timestamp. */
function promptDraft(question: Question): Omit<PromptRecord, 'at'> {
  return typeof question === 'string' ? { type: 'prompt', text: question } : { type: 'prompt', text: textOf(question), content: question };
}

/** Compares questions: the same text, or the same blocks. */
const questionKey = (question: Question) => (typeof question === 'string' ? `text:${question}` : `blocks:${JSON.stringify(question)}`);

/**
 * The `resume` record and the messages a resume goes on from that are not in the transcript yet:
 * its repair (synthetic); for a fork, the whole history (the copied part as it was recorded).
 */
function resumeDrafts(conversation: RestoredConversation, forkedFrom?: string): Draft[] {
  const { messages, turnCount, repaired } = conversation;
  const recordedCount = forkedFrom === undefined ? conversation.recordedCount : 0;
  return [
    { type: 'resume', turnCount, repaired, messageCount: recordedCount, ...(forkedFrom !== undefined ? { forkedFrom } : {}) },
    ...messages.slice(recordedCount).map((message, i): Draft => {
      const index = recordedCount + i;
      return { type: 'message', index, message, ...(index >= conversation.recordedCount ? { synthetic: true as const } : {}) };
    }),
  ];
}

/** Goes on appending to the transcript of an existing session (`--resume`). */
export function reopenSession(id: string, path: string, options: RecorderOptions = {}): SessionRecorder {
  const writer = TranscriptWriter.reopen(path, { durable: options.durable, redactor: options.redactor });
  return createRecorder(id, writer, options);
}

/** A record without its timestamp; `at` is added on write. */
export type Draft = SessionRecord extends infer R ? (R extends { at: string } ? Omit<R, 'at'> : never) : never;

/**
 * The records a run event leaves in the file at once, in the write of the event itself: a tool
 * starts right after its `tool_start`, and resume.ts must know of it (never run it again).
 */
const WRITTEN_AT_ONCE: ReadonlySet<RunEvent['type']> = new Set(['tool_start']);

function createRecorder(id: string, writer: TranscriptWriter, options: RecorderOptions, recordedPrompt?: Question): SessionRecorder {
  let failure: Error | undefined;
  const at = timestamps(options.now);
  // The prompt recorded last, until a message is written (the run has put it into the history).
  let unanswered = recordedPrompt === undefined ? undefined : questionKey(recordedPrompt);
  // Lines not written yet: the records of the step that is running, written in one write when it
  // ends (a microtask), or with the next record written at once.
  let pending: string[] = [];
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const lines = pending;
    pending = [];
    if (failure) return;
    try {
      writer.writeLines(lines);
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
      options.onError?.(failure);
    }
  };
  const add = (draft: Draft, stamp: string) => {
    pending.push(lineOf(draft, stamp));
    if (draft.type === 'message') unanswered = undefined;
    if (draft.type === 'prompt') unanswered = questionKey(draft.content ?? draft.text);
  };
  /** Writes the drafts, after what is pending, in one write now. */
  const write = (...drafts: Draft[]) => {
    if (failure) return;
    const stamp = at();
    for (const draft of drafts) add(draft, stamp);
    flush();
  };

  return {
    id,
    path: writer.path,
    get failure() {
      return failure;
    },
    prompt(question) {
      if (questionKey(question) !== unanswered) write(promptDraft(question));
    },
    resumed(conversation, prompt) {
      write(...resumeDrafts(conversation), ...(prompt !== undefined && prompt !== null ? [promptDraft(prompt)] : []));
    },
    onEvent(event) {
      const draft = draftOf(event);
      if (!draft || failure) return;
      if (WRITTEN_AT_ONCE.has(event.type)) return write(draft);
      add(draft, at());
      if (!scheduled) {
        scheduled = true;
        queueMicrotask(flush);
      }
    },
    flush,
    finish(result) {
      write(resultDraft(result));
    },
    close() {
      flush();
      try {
        writer.close();
      } catch (error) {
        if (!failure) options.onError?.(error instanceof Error ? error : new Error(String(error)));
      }
    },
  };
}

/** A draft's line: its JSON with `at` last (as `{ ...draft, at }` would give), and the newline. */
function lineOf(draft: Draft, at: string): string {
  const json = JSON.stringify(draft);
  return `${json.slice(0, -1)},"at":${JSON.stringify(at)}}\n`;
}

/** The time for `at`: `now()`, or the clock, whose ISO string is made once a millisecond. */
function timestamps(now: (() => Date) | undefined): () => string {
  if (now) return () => now().toISOString();
  let ms = NaN;
  let iso = '';
  return () => {
    const t = Date.now();
    if (t !== ms) {
      ms = t;
      iso = new Date(t).toISOString();
    }
    return iso;
  };
}

/**
 * The record a run event becomes in a transcript (without its `at`), or `undefined` for what a
 * transcript leaves out. Also used by durable runs, which keep the same records elsewhere.
 */
export function draftOf(event: RunEvent): Draft | undefined {
  switch (event.type) {
    case 'transition': {
      const { type, ...rest } = event;
      return { type: 'transition', ...rest };
    }
    case 'decision':
      return { type: 'decision', state: event.state, guard: event.guard, target: event.target };
    case 'message':
      return { type: 'message', index: event.index, message: event.message, origin: event.origin };
    case 'request': {
      const { messages, ...body } = event.body;
      return {
        type: 'request',
        turnCount: event.turnCount,
        messageCount: event.messageCount,
        body,
        // The loop's own messages carry no cache_control: the breakpoints the model service
        // adds are on the last messages of the copy it sends (anthropic/cache.ts), so only
        // those are looked at; marks a caller wrote are in the message records already.
        messageCacheMarks: messageCacheMarks(messages, Math.max(0, event.messageCount - CACHED_TAIL)),
      };
    }
    case 'reply':
      return {
        type: 'usage',
        turnCount: event.turnCount,
        usage: event.usage,
        total: event.total,
        ...(event.id ? { id: event.id } : {}),
        model: event.model,
        stopReason: event.stopReason,
        costUsd: event.costUsd,
        needsFollowUp: event.needsFollowUp,
      };
    case 'tool_start':
      return { type: 'tool_start', block: event.block };
    case 'tool_result':
      return { type: 'tool_result', toolUseId: event.block.id, name: event.block.name, result: event.result };
    case 'retry':
      return {
        type: 'retry',
        attempt: event.attempt,
        delayMs: event.delayMs,
        error: event.error.message,
        kind: event.error.kind,
        ...(event.error.apiType ? { apiType: event.error.apiType } : {}),
        turnCount: event.turnCount,
        model: event.model,
      };
    case 'reply_refused':
      return { type: 'reply_refused', turnCount: event.turnCount, error: event.error.message, startedToolIds: event.startedToolIds };
    case 'tool_use': // the block arrives whole in the assistant message
    case 'text':
    case 'stream_event':
      return undefined;
  }
}

/** The `result` record of a finished run (without its `at`). */
export function resultDraft(result: FinishedRun): Draft {
  const { context } = result;
  return {
    type: 'result',
    state: result.state,
    exitReason: context.exitReason,
    stopReason: context.stopReason,
    turnCount: context.turnCount,
    usage: context.usage,
    turnUsage: context.turnUsage,
    durationMs: result.durationMs,
    ...(context.error ? { error: context.error.message } : {}),
  };
}
