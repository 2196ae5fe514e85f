/**
 * src/tools/mcp/cutAnswers.ts against a bare HTTP server that answers a POST's requests on an event stream and then
 * cuts it (the socket destroyed once its bytes are written): each request left unanswered gets one JSON-RPC error
 * answer, after every answer that did arrive, and an answer that arrived just before the cut is kept, never doubled.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { streamableHttp } from '../../../src/tools/mcp/cutAnswers.js';

type Reply = (res: ServerResponse, ids: number[]) => void;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function serve(reply: Reply): Promise<URL> {
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const ids = (JSON.parse(body) as { id: number }[]).map((m) => m.id);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      reply(res, ids);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
}

const answer = (id: number) => `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: { content: [] } })}\n\n`;
const cutAfter = (text: string) => (res: ServerResponse) => res.write(text, () => res.socket!.destroy());

/** Sends requests 1 and 2 in one POST and resolves with what the transport delivers, once request 2 is answered. */
async function call(reply: Reply): Promise<JSONRPCMessage[]> {
  const transport = streamableHttp(await serve(reply), {});
  const got: JSONRPCMessage[] = [];
  const done = new Promise<void>((resolve) => {
    transport.onmessage = (message) => {
      got.push(message);
      if ('id' in message && message.id === 2) resolve();
    };
  });
  await transport.start();
  const request = (id: number) => ({ jsonrpc: '2.0' as const, id, method: 'tools/call', params: { name: 'x' } });
  await transport.send([request(1), request(2)] as unknown as JSONRPCMessage);
  await done;
  closers.push(() => transport.close());
  return got;
}

describe('a streamable HTTP answer stream cut by the server', () => {
  it('answers every unanswered request of the cut stream with an error', async () => {
    const got = await call(cutAfter(''));
    expect(got.map((m) => ('id' in m ? m.id : undefined))).toEqual([1, 2]);
    expect(got[0]).toMatchObject({ error: { code: -32000, message: expect.stringMatching(/^the server's answer was cut: /) } });
    expect(got[0]).not.toHaveProperty('error.data');
  });

  it('keeps an answer that arrived just before the cut, once, and fails only the other request', async () => {
    const got = await call(cutAfter(answer(1)));
    expect(got).toEqual([{ jsonrpc: '2.0', id: 1, result: { content: [] } }, expect.objectContaining({ id: 2, error: expect.anything() })]);
  });

  it('answers after an event the cut left half-written, and when the stream ends without the answers', async () => {
    const half = await call(cutAfter(`${answer(1)}event: message\ndata: {"jsonrpc":"2.0","id":2,"res`));
    expect(half.filter((m) => 'id' in m).map((m) => [(m as { id: number }).id, 'error' in m])).toEqual([[1, false], [2, true]]);
    const ended = await call((res) => res.end(answer(1)));
    expect(ended.map((m) => [(m as { id: number }).id, 'error' in m])).toEqual([[1, false], [2, true]]);
  });
});
