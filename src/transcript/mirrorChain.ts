/**
 * What a Claude Code mirror (./claudeMirror.ts) already holds, read as Claude Code's `--resume` reads it: the chain of
 * `parentUuid` from its last line back to its root, its lines merged into messages by role. A resumed run goes on from
 * the last message of that chain that is also its own history's; a message the mirror lacks or holds otherwise (a
 * resume's repaired answer, a line a kill tore off) is written again on a branch from there, which Claude Code follows
 * (it reads from the last line).
 */
import { fstatSync, readSync } from 'node:fs';
import type { MessageParam } from '../core/messages.js';

interface ChainLine {
  uuid: string;
  parentUuid?: string | null;
  leafUuid?: string;
  type?: string;
  message?: { role?: string; content?: unknown };
}

/** A message of the chain: its role, its blocks, the uuid of its last line. */
interface ChainMessage {
  role: string;
  blocks: unknown[];
  end: string;
}

export interface MirrorHeld {
  /** The uuid of the chain's last line (where a run goes on), or undefined for an empty mirror. */
  leaf: string | undefined;
  /** How many of `history`'s messages the chain holds as they are, from the start. */
  held: number;
  /** The uuid of the last line of each message held (the last one's is the parent of what is written next). */
  ends: string[];
  /** The line of each tool_use held (a result is chained to it, as Claude Code chains it). */
  toolLines: Map<string, string>;
}

/** What the mirror open at `fd` holds of `history`. */
export function mirrorHeld(fd: number, history: readonly MessageParam[]): MirrorHeld {
  const size = fstatSync(fd).size;
  if (size > MAX_READ) return tailHeld(fd, size, history);
  const lines = readLines(fd, 0, size);
  const byUuid = new Map(lines.filter((l) => typeof l.uuid === 'string').map((l) => [l.uuid, l]));
  const last = [...lines].reverse().find((l) => typeof l.leafUuid === 'string' || typeof l.uuid === 'string');
  const leaf = last?.leafUuid ?? last?.uuid;
  const chain: ChainLine[] = [];
  for (let at = leaf ? byUuid.get(leaf) : undefined; at && chain.length <= byUuid.size; at = at.parentUuid ? byUuid.get(at.parentUuid) : undefined) chain.unshift(at);
  const messages = merged(chain);
  let held = 0;
  while (held < messages.length && held < history.length && same(messages[held] as ChainMessage, history[held] as MessageParam)) held += 1;
  const toolLines = new Map<string, string>();
  for (const line of chain) for (const block of blocksOf(line)) if (isToolUse(block)) toolLines.set(block.id, line.uuid);
  return { leaf, held, ends: messages.slice(0, held).map((m) => m.end), toolLines };
}

/** A mirror past this size is not read whole (its chain is not walked): see tailHeld. */
const MAX_READ = 32 * 1024 * 1024;

/**
 * A mirror too big to read whole: its last line's leaf from its last 64 KiB, and the history taken as held (what a
 * kill left out of it stays out: Claude Code's --resume repairs a result it lacks as interrupted).
 */
function tailHeld(fd: number, size: number, history: readonly MessageParam[]): MirrorHeld {
  const last = readLines(fd, size - 64 * 1024, 64 * 1024).reverse().find((l) => typeof l.leafUuid === 'string' || typeof l.uuid === 'string');
  const leaf = last?.leafUuid ?? last?.uuid;
  return { leaf, held: leaf ? history.length : 0, ends: leaf ? history.map(() => leaf) : [], toolLines: new Map() };
}

function readLines(fd: number, from: number, length: number): ChainLine[] {
  const buffer = Buffer.alloc(length);
  readSync(fd, buffer, 0, length, from);
  const lines: ChainLine[] = [];
  for (const text of buffer.toString('utf8').split('\n')) {
    try {
      const line = JSON.parse(text) as ChainLine;
      if (line && typeof line === 'object') lines.push(line);
    } catch {
      // a torn or cut line: left out
    }
  }
  return lines;
}

/** The chain's user and assistant lines as messages: consecutive lines of one role are one message (Claude Code's reading). */
function merged(chain: readonly ChainLine[]): ChainMessage[] {
  const messages: ChainMessage[] = [];
  for (const line of chain) {
    const role = line.message?.role;
    if ((line.type !== 'user' && line.type !== 'assistant') || (role !== 'user' && role !== 'assistant')) continue;
    const previous = messages.at(-1);
    if (previous && previous.role === role) {
      previous.blocks.push(...blocksOf(line));
      previous.end = line.uuid;
    } else messages.push({ role, blocks: [...blocksOf(line)], end: line.uuid });
  }
  return messages;
}

function blocksOf(line: ChainLine): unknown[] {
  const content = line.message?.content;
  return typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
}

const isToolUse = (block: unknown): block is { type: 'tool_use'; id: string } =>
  typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'tool_use' && typeof (block as { id?: unknown }).id === 'string';

/** Whether the chain's message is the history's: the same role and blocks of the same kinds, ids and error flags. */
function same(held: ChainMessage, message: MessageParam): boolean {
  const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  if (held.role !== message.role || held.blocks.length !== blocks.length) return false;
  return blocks.every((block, i) => shapeOf(block) === shapeOf(held.blocks[i]));
}

/** What two blocks must share to be one: kind, ids, error flag (texts may differ by redaction). */
function shapeOf(block: unknown): string {
  const b = (block ?? {}) as { type?: unknown; id?: unknown; tool_use_id?: unknown; is_error?: unknown };
  return JSON.stringify([b.type, b.id ?? null, b.tool_use_id ?? null, b.is_error === true]);
}
