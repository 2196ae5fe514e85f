/**
 * An MCP `Transport` whose messages travel through a function that answers each: what the Agent SDK's in-process
 * servers need, whose JSON-RPC messages go to the host as `mcp_message` control requests and come back in their
 * answers (`{ mcp_response }`). Given to `startMcpServers` as `{ type: 'transport', transport }`, such a server is
 * connected as any other (./connect.ts): `initialize`, every page of `tools/list`, `MCP_TIMEOUT` at start, each call
 * bounded by `MCP_TOOL_TIMEOUT` and checked by the MCP SDK's client, a failure a `failed` state or an `is_error`
 * result.
 *
 * A request's answer is handed to the client as the server's message. A notification or a response the client sends
 * is relayed too, and what comes back for it (the Agent SDK answers `{ result: {}, id: 0 }`) is dropped. A relay that
 * fails answers the request with a JSON-RPC error naming why, so the call ends at once rather than at its timeout.
 * Messages the server sends on its own (a notification) are given with `deliver`.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Sends one JSON-RPC message to the server; resolves with what the server answered (for a request: its response). */
export type McpRelay = (message: JSONRPCMessage) => Promise<unknown>;

/** JSON-RPC's "internal error": the relay could not reach the server or brought back no response. */
const RELAY_FAILED = -32603;

export class RelayTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  private closed = false;

  constructor(private readonly relay: McpRelay) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('the transport is closed');
    const id = 'method' in message && 'id' in message ? message.id : undefined;
    this.relay(message).then(
      (answer) => {
        if (id === undefined) return; // a notification's or a response's answer says nothing
        this.deliver(isResponse(answer, id) ? answer : failure(id, `the answer to ${describe(message)} is not its JSON-RPC response: ${preview(answer)}`));
      },
      (error: unknown) => {
        if (id === undefined) this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        else this.deliver(failure(id, `${describe(message)} could not be relayed: ${error instanceof Error ? error.message : String(error)}`));
      },
    );
  }

  /** A message from the server: an answer, or one it sends on its own. */
  deliver(message: JSONRPCMessage): void {
    if (!this.closed) this.onmessage?.(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function isResponse(answer: unknown, id: string | number): answer is JSONRPCMessage {
  return isObject(answer) && answer.jsonrpc === '2.0' && answer.id === id && ('result' in answer || isObject(answer.error));
}

function failure(id: string | number, message: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code: RELAY_FAILED, message } };
}

const describe = (message: JSONRPCMessage) => ('method' in message ? message.method : 'a message');

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
