/**
 * A session's mirror in Claude Code's place and shape, so that what reads Claude Code's sessions reads agentloop's:
 * the Agent SDK's `listSessions({ dir })` and `getSessionMessages(id)`, Claude Code's own `--resume` list.
 * `$CLAUDE_CONFIG_DIR` (default `~/.claude`) `/projects/<the cwd, sanitized>/<session id>.jsonl`, its lines as Claude
 * Code 2.1.197 writes them (recorded against a local Messages API): the prompt as a `user` line, one `assistant` line
 * per content block of a reply, one `user` line per tool result (with `toolUseResult`), each line chained to the one
 * before it by `parentUuid`, and a `last-prompt` line at the end of each run. A compaction is Claude Code's
 * `system/compact_boundary` line (no parent: Claude Code's `--resume` reads from it on), then the history it goes on
 * from: the summary as an `isCompactSummary` user line, the exchanges kept (./claudeMirrorCompact.json).
 *
 * agentloop's transcript (./recorder.ts) is the source of truth: the recorder writes the mirror, under the session's
 * lock, right after each write of the transcript, every line through the same redactor. It is never read back by
 * agentloop (a resume reads the transcript); a mirror that cannot be written is told once and left, the run goes on.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, fstatSync, mkdirSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CompactBoundary, RunEvent } from '../core/events.js';
import type { MessageParam } from '../core/messages.js';
import { noRedaction, type Redactor } from '../core/redact.js';
import { mirrorHeld } from './mirrorChain.js';
import { endsWithNewline, openSessionFile } from './sessionFile.js';

/** Where Claude Code keeps its settings and sessions: `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeConfigDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude');
}

/** Claude Code's folder name for a working directory: every character but a-z, A-Z, 0-9 a `-`; a long one cut, with a hash. */
export function sanitizedCwd(cwd: string): string {
  const name = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  if (name.length <= 200) return name;
  let hash = 0;
  for (let i = 0; i < cwd.length; i += 1) hash = ((hash << 5) - hash + cwd.charCodeAt(i)) | 0;
  return `${name.slice(0, 200)}-${Math.abs(hash).toString(36)}`;
}

/** The mirror's path for a session of `cwd`. */
export function mirrorPath(configDir: string, cwd: string, id: string): string {
  return join(configDir, 'projects', sanitizedCwd(cwd), `${id}.jsonl`);
}

export interface MirrorOptions {
  /** `claudeConfigDir()`: the mirror is written under its `projects/`. */
  configDir: string;
  /** Claude Code's `entrypoint` of the lines: `sdk-ts` for an Agent SDK program, `cli` otherwise. */
  entrypoint?: string;
  /** The `version` of the lines: agentloop's. */
  version: string;
  /** Told once when the mirror cannot be written (it is left from then on). */
  warn?: (line: string) => void;
}

type Line = Record<string, unknown>;

/** `$CLAUDE_CONFIG_DIR` is missing and so is the folder it would be made in: no copy, nothing said. */
class NoConfigFolder extends Error {}

/** What a reply's `reply` event adds to its message: Claude Code's message id, model, stop reason, usage, request id. */
interface ReplyMeta {
  id?: string | undefined;
  model: string;
  stopReason: string | null;
  usage: unknown;
  requestId?: string | undefined;
}

/** The history before a compaction, with its replies' metadata: written up to its end, then the boundary. */
interface Compacted {
  messages: MessageParam[];
  replies: Map<number, ReplyMeta>;
  boundary: CompactBoundary;
}

const NO_META: ReplyMeta = { model: '', stopReason: null, usage: {} };

/**
 * The mirror of one recorder: fed the run's events (`onEvent`) and written with the transcript (`write`). Its lines
 * are made when written, from the history: a new session's mirror (and a fork's, a session whose mirror is missing, a
 * session the recorder moved on to) starts with the whole history; a resumed one goes on after its mirror's last line.
 */
export class ClaudeMirror {
  private messages: MessageParam[] = [];
  private replies = new Map<number, ReplyMeta>();
  /** Histories the run compacted, oldest first, whose lines are not all written yet. */
  private readonly compacted: Compacted[] = [];
  /** The messages a compaction's history starts with (the summary, what was kept): written without reply metadata. */
  private fromBoundary = 0;
  /** The next user line is a compaction's summary. */
  private summaryNext = false;
  private readonly data = new Map<string, unknown>();
  /** The messages of the history before this recorder's run (in a mirror that exists already). */
  private seeded = 0;
  /** How many messages of the history have their lines written. */
  private done = 0;
  /** The uuid of the assistant line of each tool_use id (its results' parent). */
  private readonly toolLines = new Map<string, string>();
  private file: { id: string; fd: number } | undefined;
  private parent: string | null = null;
  /** The uuid of the last line of each message of the history written (a replaced one is written again after the one before it). */
  private ends: string[] = [];
  private lastPrompt: string | undefined;
  private ended = false;
  private failed = false;

  constructor(
    private readonly cwd: string,
    private readonly options: MirrorOptions,
    private readonly redactor: Redactor = noRedaction,
  ) {}

  /** The history a resume or a fork starts from: in the mirror when it exists already, else written first. */
  seed(messages: readonly MessageParam[]): void {
    this.messages.splice(0, this.messages.length, ...messages);
    this.seeded = messages.length;
  }

  onEvent(event: RunEvent): void {
    if (event.type === 'tool_result' && event.data !== undefined) this.data.set(event.block.id, event.data);
    else if (event.type === 'compact_boundary') {
      this.compacted.push({ messages: this.messages, replies: this.replies, boundary: event.boundary });
      this.messages = [...event.boundary.messages];
      this.replies = new Map();
    } else if (event.type === 'message') {
      this.messages[event.index] = event.message;
      // A message replaced once written (a subagent's answer in place of "interrupted"): written again, on a branch.
      if (event.index < this.done && this.compacted.length === 0) {
        this.done = event.index;
        this.ends.length = event.index;
        this.parent = this.ends.at(-1) ?? null;
      }
      if (event.origin === 'prompt') this.lastPrompt = promptText(event.message);
    } else if (event.type === 'reply') {
      this.replies.set(event.index, { id: event.id, model: event.model, stopReason: event.stopReason, usage: event.usage, requestId: event.requestId });
    }
  }

  /** A run ended: its last lines, and Claude Code's `last-prompt` line (what its lists show as the summary). */
  finish(): void {
    this.ended = true;
  }

  /** Writes the lines of what the history gained since the last write to session `id`'s mirror, in one write. */
  write(id: string): void {
    if (this.failed) return;
    try {
      const fd = this.open(id);
      const lines = this.lines();
      if (lines.length) writeSync(fd, lines.map((line) => `${this.redactor.jsonText(JSON.stringify({ ...line, sessionId: id }))}\n`).join(''));
    } catch (error) {
      this.failed = true;
      if (error instanceof NoConfigFolder) return;
      this.options.warn?.(`agentloop: the session's copy for Claude Code's tools (${this.options.configDir}/projects) is not written: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  close(): void {
    if (this.file) closeSync(this.file.fd);
    this.file = undefined;
  }

  private open(id: string): number {
    if (this.file?.id === id) return this.file.fd;
    this.close();
    const path = mirrorPath(this.options.configDir, this.cwd, id);
    if (!existsSync(this.options.configDir)) {
      if (!existsSync(dirname(this.options.configDir))) throw new NoConfigFolder(); // not Claude Code's folder to make
      mkdirSync(this.options.configDir, { mode: 0o700 });
    }
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const fd = openSessionFile(path, 'append');
    this.file = { id, fd };
    const held = fstatSync(fd).size > 0 && this.done === 0 ? mirrorHeld(fd, this.messages.slice(0, this.seeded)) : undefined;
    if (!endsWithNewline(fd)) writeSync(fd, '\n'); // a line torn by a kill stays alone on its line
    // A mirror of this session goes on after what it holds of the history the run started from (./mirrorChain.ts:
    // what it lacks, a resume's repaired answer say, is written on a branch from there); else it is written whole.
    this.toolLines.clear();
    this.ends = held?.ends ?? [];
    for (const [id, uuid] of held?.toolLines ?? []) this.toolLines.set(id, uuid);
    this.done = held?.held ?? 0;
    this.parent = this.ends.at(-1) ?? null;
    return fd;
  }

  /** The lines of the messages not written yet; a reply without its metadata waits for it, unless the run ended. */
  private lines(): Line[] {
    const lines: Line[] = [];
    for (let before = this.compacted.shift(); before; before = this.compacted.shift()) {
      lines.push(...this.messageLines(before.messages, before.replies, true), this.boundaryLine(before.boundary));
      this.done = 0;
      this.ends = [];
      this.fromBoundary = before.boundary.messages.length;
      this.summaryNext = before.boundary.kind === 'summary';
    }
    lines.push(...this.messageLines(this.messages, this.replies, this.ended));
    if (this.ended && this.lastPrompt !== undefined && this.parent !== null) lines.push({ type: 'last-prompt', lastPrompt: this.lastPrompt, leafUuid: this.parent });
    this.ended = false;
    return lines;
  }

  private messageLines(messages: readonly MessageParam[], replies: ReadonlyMap<number, ReplyMeta>, ended: boolean): Line[] {
    const lines: Line[] = [];
    for (; this.done < messages.length; this.done += 1) {
      const message = messages[this.done];
      if (!message) break;
      if (message.role === 'assistant') {
        const meta = replies.get(this.done) ?? (this.done < Math.max(this.seeded, this.fromBoundary) ? NO_META : undefined);
        if (!meta && !ended) break;
        lines.push(...this.assistantLines(message, meta ?? NO_META));
      } else lines.push(...this.userLines(message));
      this.ends[this.done] = this.parent as string;
    }
    return lines;
  }

  /** Claude Code's boundary line: the start of a chain (its `--resume` reads from here), tied to the history before by `logicalParentUuid`. */
  private boundaryLine(boundary: CompactBoundary): Line {
    const logicalParentUuid = this.parent;
    this.parent = null;
    const compactMetadata = { trigger: boundary.trigger, preTokens: boundary.tokensBefore, durationMs: boundary.durationMs, postTokens: boundary.tokensAfter };
    return { ...this.common(), logicalParentUuid, type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', isMeta: false, level: 'info', compactMetadata };
  }

  private common(): Line & { uuid: string } {
    const uuid = randomUUID();
    const line = { parentUuid: this.parent, isSidechain: false, uuid, timestamp: new Date().toISOString(), userType: 'external', entrypoint: this.options.entrypoint ?? 'cli', cwd: this.cwd, version: this.options.version };
    this.parent = uuid;
    return line;
  }

  private assistantLines(message: MessageParam, meta: ReplyMeta): Line[] {
    const body = { id: meta.id ?? `msg_${randomUUID()}`, type: 'message', role: 'assistant', model: meta.model, stop_reason: meta.stopReason, stop_sequence: null, usage: meta.usage };
    return blocksOf(message).map((block) => {
      const line = this.common();
      if (block.type === 'tool_use') this.toolLines.set(block.id, line.uuid);
      return { ...line, message: { ...body, content: [block] }, ...(meta.requestId ? { requestId: meta.requestId } : {}), type: 'assistant' };
    });
  }

  private userLines(message: MessageParam): Line[] {
    const blocks = blocksOf(message);
    const results = blocks.flatMap((b) => (b.type === 'tool_result' ? [b] : []));
    if (results.length === 0) {
      const summary = this.summaryNext ? { isVisibleInTranscriptOnly: true, isCompactSummary: true } : {};
      this.summaryNext = false;
      return [{ ...this.common(), type: 'user', message: { role: 'user', content: blocks }, ...summary }];
    }
    const lines: Line[] = results.map((result) => {
      const source = this.toolLines.get(result.tool_use_id);
      if (source) this.parent = source; // Claude Code chains a result to the line of its tool_use
      const data = this.data.get(result.tool_use_id);
      this.data.delete(result.tool_use_id);
      const content = [{ ...result, is_error: result.is_error === true }];
      return { ...this.common(), type: 'user', message: { role: 'user', content }, toolUseResult: data !== undefined ? data : resultText(result), ...(source ? { sourceToolAssistantUUID: source } : {}) };
    });
    const others = blocks.filter((b) => b.type !== 'tool_result');
    if (others.length) lines.push({ ...this.common(), type: 'user', message: { role: 'user', content: others } });
    return lines;
  }
}

const blocksOf = (message: MessageParam) => (Array.isArray(message.content) ? message.content : [{ type: 'text' as const, text: message.content }]);

/** A prompt's text, as Claude Code's `last-prompt` line gives it. */
const promptText = (message: MessageParam) => blocksOf(message).flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');

/** A tool result's text, as Claude Code's `toolUseResult` has it for a tool with no structured result. */
function resultText(result: { content?: unknown; is_error?: boolean }): string {
  const text = typeof result.content === 'string' ? result.content : JSON.stringify(result.content ?? '');
  if (result.is_error !== true) return text;
  const tagged = /^<tool_use_error>([\s\S]*)<\/tool_use_error>$/.exec(text);
  return tagged ? (tagged[1] as string) : `Error: ${text}`;
}
