/**
 * The local Messages API server in a process of its own, so that the process being measured
 * spends no time answering itself (as with the real API). Driven over IPC by `serverClient.ts`.
 */
import { startMessagesServer, type Step } from '../test/support/messagesServer.js';
import { conversationStepFn } from './conversation.js';
import { manyStepFn, openGate, resetGate, seenAtGate } from './manyTask.js';

export type ServerCommand =
  /** Queue `count` replies of the scripted conversation. */
  | { id: number; type: 'conversation'; count: number }
  /** Queue `count` replies of the many-at-once task (manyTask.ts), behind a new gate. */
  | { id: number; type: 'many'; count: number }
  /** Open the many-at-once task's gate. */
  | { id: number; type: 'open' }
  /** Queue these steps (plain data). */
  | { id: number; type: 'enqueue'; steps: Step[] }
  /** Forget the recorded requests (queued steps stay). */
  | { id: number; type: 'clear' }
  | { id: number; type: 'stats' };

export interface ServerAnswer {
  id: number;
  /** First requests of the many-at-once task's measured runs seen since its gate was reset. */
  gated: number;
  requests: number;
  pending: number;
}

const eventDelayMs = Number(process.env.BENCH_EVENT_DELAY_MS ?? 0);
const firstFrameMs = Number(process.env.BENCH_FIRST_FRAME_MS ?? 0);
const server = await startMessagesServer({
  eventDelayMs,
  oneWritePerReply: process.env.BENCH_ONE_WRITE === '1',
  // A model's time to first token before each reply (the many-at-once benchmark), then the frames at once.
  ...(firstFrameMs > 0 ? { framePause: (_frame: unknown, position: number) => (position === 0 ? firstFrameMs : 0) } : {}),
});
process.send?.({ type: 'ready', url: server.url });

process.on('message', (command: ServerCommand) => {
  if (command.type === 'conversation') {
    for (let i = 0; i < command.count; i++) server.enqueue(conversationStepFn);
  } else if (command.type === 'many') {
    resetGate();
    for (let i = 0; i < command.count; i++) server.enqueue(manyStepFn);
  } else if (command.type === 'open') {
    openGate();
  } else if (command.type === 'enqueue') {
    server.enqueue(...command.steps);
  } else if (command.type === 'clear') {
    server.requests.splice(0);
  }
  // A server that answers thousands of runs keeps no record of them (the many-at-once benchmark).
  if (firstFrameMs > 0) server.requests.splice(0);
  const answer: ServerAnswer = { id: command.id, requests: server.requests.length, pending: server.pending, gated: seenAtGate() };
  process.send?.(answer);
});
process.on('disconnect', () => {
  void server.close().then(() => process.exit(0));
});
