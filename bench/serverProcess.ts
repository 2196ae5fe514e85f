/**
 * The local Messages API server in a process of its own, so that the process being measured
 * spends no time answering itself (as with the real API). Driven over IPC by `serverClient.ts`.
 */
import { startMessagesServer, type Step } from '../test/support/messagesServer.js';
import { conversationStepFn } from './conversation.js';

export type ServerCommand =
  /** Queue `count` replies of the scripted conversation. */
  | { id: number; type: 'conversation'; count: number }
  /** Queue these steps (plain data). */
  | { id: number; type: 'enqueue'; steps: Step[] }
  /** Forget the recorded requests (queued steps stay). */
  | { id: number; type: 'clear' }
  | { id: number; type: 'stats' };

export interface ServerAnswer {
  id: number;
  requests: number;
  pending: number;
}

const eventDelayMs = Number(process.env.BENCH_EVENT_DELAY_MS ?? 0);
const server = await startMessagesServer({ eventDelayMs, oneWritePerReply: process.env.BENCH_ONE_WRITE === '1' });
process.send?.({ type: 'ready', url: server.url });

process.on('message', (command: ServerCommand) => {
  if (command.type === 'conversation') {
    for (let i = 0; i < command.count; i++) server.enqueue(conversationStepFn);
  } else if (command.type === 'enqueue') {
    server.enqueue(...command.steps);
  } else if (command.type === 'clear') {
    server.requests.splice(0);
  }
  const answer: ServerAnswer = { id: command.id, requests: server.requests.length, pending: server.pending };
  process.send?.(answer);
});
process.on('disconnect', () => {
  void server.close().then(() => process.exit(0));
});
