/** Starts `serverProcess.ts` as a child process and sends it commands. */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Step } from '../test/support/messagesServer.js';
import type { ServerAnswer } from './serverProcess.js';

export interface RemoteServer {
  url: string;
  /** Queue `count` replies of the scripted conversation. */
  conversation(count: number): Promise<ServerAnswer>;
  /** Queue `count` replies of the many-at-once task, behind a new gate (manyTask.ts). */
  many(count: number): Promise<ServerAnswer>;
  /** Open the many-at-once task's gate. */
  open(): Promise<ServerAnswer>;
  enqueue(...steps: Step[]): Promise<ServerAnswer>;
  clear(): Promise<ServerAnswer>;
  stats(): Promise<ServerAnswer>;
  close(): Promise<void>;
}

export async function startRemoteServer(options: { eventDelayMs?: number; oneWritePerReply?: boolean; firstFrameMs?: number } = {}): Promise<RemoteServer> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./serverProcess.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      BENCH_EVENT_DELAY_MS: String(options.eventDelayMs ?? 0),
      BENCH_ONE_WRITE: options.oneWritePerReply ? '1' : '',
      BENCH_FIRST_FRAME_MS: String(options.firstFrameMs ?? 0),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the server process exited with ${code}`)));
    child.once('message', (message: { type: string; url: string }) => resolve(message.url));
  });
  let nextId = 1;
  const waiting = new Map<number, (answer: ServerAnswer) => void>();
  child.on('message', (message: ServerAnswer) => {
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  });
  const send = (command: Record<string, unknown>) =>
    new Promise<ServerAnswer>((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      child.send({ ...command, id });
    });
  return {
    url,
    conversation: (count) => send({ type: 'conversation', count }),
    many: (count) => send({ type: 'many', count }),
    open: () => send({ type: 'open' }),
    enqueue: (...steps) => send({ type: 'enqueue', steps }),
    clear: () => send({ type: 'clear' }),
    stats: () => send({ type: 'stats' }),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}
