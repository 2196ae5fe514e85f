/**
 * A stdio MCP server that answers start-up and the tool list as it should, then each tool call with one kind of
 * garbage, named by its tool (GARBAGE): lines that are not JSON, JSON that is not JSON-RPC, an answer to another id, a
 * result of the wrong shape, an error, an answer twice. `ok` answers right, and counts the calls it answered, so a call
 * after garbage shows whether the connection still works. Written by hand (no SDK): the subject is the wire.
 */
import { createInterface } from 'node:readline';

type Id = number | string;
type Message = { jsonrpc?: string; id?: Id; method?: string; params?: { name?: string } };

const send = (value: unknown) => process.stdout.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
const answer = (id: Id, result: unknown) => send({ jsonrpc: '2.0', id, result });
const text = (t: string) => ({ content: [{ type: 'text', text: t }] });

/** What each tool answers to a call with id `id`. */
export const GARBAGE: Record<string, (id: Id) => void> = {
  noise_then_answer: (id) => {
    send('this line is not JSON');
    send({ hello: 'JSON, not JSON-RPC' });
    answer(id, text('answered after the noise'));
  },
  not_json: () => send('{"jsonrpc": "2.0", "id": cut here'),
  not_jsonrpc: () => send({ result: text('no jsonrpc, no id') }),
  wrong_id: (id) => answer(typeof id === 'number' ? id + 1000 : `${id}-other`, text('for another call')),
  batch: (id) => send([{ jsonrpc: '2.0', id, result: text('in a batch') }]),
  content_not_array: (id) => answer(id, { content: 'a string, not blocks' }),
  text_not_string: (id) => answer(id, { content: [{ type: 'text', text: 42 }] }),
  unknown_block: (id) => answer(id, { content: [{ type: 'hologram', data: '?' }] }),
  result_null: (id) => answer(id, null),
  is_error_not_boolean: (id) => answer(id, { content: [{ type: 'text', text: 'x' }], isError: 'yes' }),
  rpc_error: (id) => send({ jsonrpc: '2.0', id, error: { code: -32603, message: 'internal garbage error' } }),
  answer_twice: (id) => {
    answer(id, text('first answer'));
    answer(id, text('second answer'));
  },
};

/** Writes `parts` (strings, or [a chunk, how many times]) to stdout, waiting for each write to drain: no 300 MB string is built. */
async function stream(parts: (string | [string, number])[]): Promise<void> {
  for (const part of parts) {
    const [chunk, times] = typeof part === 'string' ? [part, 1] : part;
    for (let i = 0; i < times; i++) if (!process.stdout.write(chunk)) await new Promise((resolve) => process.stdout.once('drain', resolve));
  }
}

const MB = 1024 * 1024;
/** A 1 MB run of one letter, repeated for big texts. */
const MEGA = 'a'.repeat(MB);

/**
 * Answers too big for one message, each as a real server would send it: `huge_text`, a 50 MB text result with the
 * result first and the id last (the MCP SDK's servers write `{"result":...,"jsonrpc":"2.0","id":N}`); `huge_image`,
 * an 8 MB PNG as base64 (about 11 MB of JSON: over the MCP SDK's 10 MB); `endless`, 300 MB with no newline ever.
 */
export const HUGE: Record<string, (id: Id) => Promise<void>> = {
  huge_text: (id) => stream(['{"result":{"content":[{"type":"text","text":"START', [MEGA, 50], `END"}]},"jsonrpc":"2.0","id":${JSON.stringify(id)}}\n`]),
  huge_image: (id) => {
    const png = Buffer.alloc(8 * MB);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png);
    return stream([`${JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'image', mimeType: 'image/png', data: png.toString('base64') }] } })}\n`]);
  },
  endless: () => stream(['{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"', [MEGA, 300]]),
};

/** A small PNG (1x1), as base64: a real image the API takes, for results that mix text and images. */
export const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/**
 * Answers big but under the 16 MB bound, for Claude Code's MAX_MCP_OUTPUT_TOKENS cut: `big_text`, 2 MB of text
 * (`START`, lines of 99 letters, `END`); `big_mixed`, a text block of 60,000 characters, an image, a text block of
 * 60,000 characters, an image, a text block of 1000.
 */
export const BIG: Record<string, () => unknown> = {
  big_text: () => text(`START${`${'b'.repeat(99)}\n`.repeat(20_000)}END`),
  big_mixed: () => ({
    content: [
      { type: 'text', text: `ONE${'c'.repeat(60_000)}` },
      { type: 'image', mimeType: 'image/png', data: PIXEL },
      { type: 'text', text: `TWO${'d'.repeat(60_000)}` },
      { type: 'image', mimeType: 'image/png', data: PIXEL },
      { type: 'text', text: `THREE${'e'.repeat(1000)}` },
    ],
  }),
};

let okCalls = 0;

function onMessage(message: Message): void {
  if (message.id === undefined || message.method === undefined) return; // notifications, and answers to nothing
  if (message.method === 'initialize') {
    answer(message.id, { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'garbage', version: '1.0.0' } });
  } else if (message.method === 'tools/list') {
    const names = ['ok', ...Object.keys(GARBAGE), ...Object.keys(HUGE), ...Object.keys(BIG)];
    answer(message.id, { tools: names.map((name) => ({ name, description: `answers ${name}`, inputSchema: { type: 'object', properties: {} } })) });
  } else if (message.method === 'tools/call') {
    const name = message.params?.name ?? '';
    if (name === 'ok') answer(message.id, text(`ok ${++okCalls}`));
    else if (HUGE[name]) void HUGE[name](message.id);
    else if (BIG[name]) answer(message.id, BIG[name]());
    else GARBAGE[name]?.(message.id);
  } else {
    send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `no method ${message.method}` } });
  }
}

if (process.argv[2] === 'stdio') {
  createInterface({ input: process.stdin }).on('line', (line) => onMessage(JSON.parse(line) as Message));
}
