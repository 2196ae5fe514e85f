/**
 * The order the viewer reads a transcript in: its whole records, with the damaged lines the viewer
 * can still show put back where they stood. Only two kinds come back, both as a mistaken loop
 * writes them: a `message` record whose message is of the right form but not valid (a tool_result
 * without its tool_use_id), and a `tool_result` record whose result is such a block. They keep
 * what is wrong with them (`broken`); any other damaged line stays out, as for every reader.
 */
import type { DamagedLine } from '../../transcript/store.js';
import type { AnyRecord } from './shape.js';

export interface ReadRecord {
  record: AnyRecord;
  /** Why the record is not valid (it is shown, marked). */
  broken?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Content blocks as they can be drawn: objects with a string `type`. */
const drawableBlocks = (content: unknown) => Array.isArray(content) && content.every((b) => isObject(b) && typeof b.type === 'string');

function drawableMessage(value: unknown): boolean {
  if (!isObject(value) || (value.role !== 'user' && value.role !== 'assistant')) return false;
  return typeof value.content === 'string' || drawableBlocks(value.content);
}

/** The damaged line as a record the viewer can show, or undefined. */
function kept(line: DamagedLine): AnyRecord | undefined {
  const v = line.value;
  if (!isObject(v) || typeof v.at !== 'string') return undefined;
  if (v.type === 'message') {
    const index = v.index;
    if (!Number.isSafeInteger(index) || (index as number) < 0 || (index as number) > line.line || !drawableMessage(v.message)) return undefined;
    return v as unknown as AnyRecord;
  }
  if (v.type === 'tool_result' && typeof v.toolUseId === 'string' && typeof v.name === 'string' && isObject(v.result) && v.result.type === 'tool_result') {
    return v as unknown as AnyRecord;
  }
  return undefined;
}

/** The records in file order, with the damaged lines the viewer keeps among them. */
export function readOrder(records: readonly AnyRecord[], damaged: readonly DamagedLine[] = []): ReadRecord[] {
  const out: ReadRecord[] = [];
  let d = 0;
  const keepUpTo = (count: number) => {
    for (; d < damaged.length && (damaged[d] as DamagedLine).after <= count; d++) {
      const line = damaged[d] as DamagedLine;
      const record = kept(line);
      if (record) out.push({ record, broken: line.problem });
    }
  };
  records.forEach((record, i) => {
    keepUpTo(i);
    out.push({ record });
  });
  keepUpTo(Number.POSITIVE_INFINITY);
  return out;
}
