/** What a durable command (worker, submit, result, messages, view --restate, approve) is given of the process. */
export interface DurableIo {
  env: NodeJS.ProcessEnv;
  /** agentloop's version (a worker's traces carry it). */
  version?: string;
  cwd: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}
