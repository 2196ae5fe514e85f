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

let okCalls = 0;

function onMessage(message: Message): void {
  if (message.id === undefined || message.method === undefined) return; // notifications, and answers to nothing
  if (message.method === 'initialize') {
    answer(message.id, { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'garbage', version: '1.0.0' } });
  } else if (message.method === 'tools/list') {
    const names = ['ok', ...Object.keys(GARBAGE)];
    answer(message.id, { tools: names.map((name) => ({ name, description: `answers ${name}`, inputSchema: { type: 'object', properties: {} } })) });
  } else if (message.method === 'tools/call') {
    const name = message.params?.name ?? '';
    if (name === 'ok') answer(message.id, text(`ok ${++okCalls}`));
    else GARBAGE[name]?.(message.id);
  } else {
    send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `no method ${message.method}` } });
  }
}

if (process.argv[2] === 'stdio') {
  createInterface({ input: process.stdin }).on('line', (line) => onMessage(JSON.parse(line) as Message));
}
