/**
 * A program run as a user of the tests (test/support/users.ts) that takes one case a line of JSON on stdin and answers
 * each with one line of JSON, in order (test/support/abortAgent.ts, test/support/mcpStopAgent.ts).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface LineAgent<C, A> {
  /** The agent's pid: what it starts are its children. */
  readonly pid: number;
  run(c: C): Promise<A>;
  close(): void;
}

/** Runs the ES module `program` with `arg` as the user `prefix` names; HOME is `home`. */
export function startLineAgent<C, A>(prefix: string[], program: string, arg: string, home: string | undefined): LineAgent<C, A> {
  const argv = [...prefix, process.execPath, '--input-type=module', '-e', program, arg];
  const child = spawn(argv[0] as string, argv.slice(1), { cwd: '/', env: { PATH: process.env.PATH, HOME: home } });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const waiting: { resolve: (a: A) => void; reject: (e: Error) => void }[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.resolve(JSON.parse(line) as A));
  child.on('close', (code, signal) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`the agent ended (${code ?? signal}) before answering: ${stderr}`));
  });
  return {
    get pid() {
      return child.pid as number;
    },
    run: (c) =>
      new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin.write(`${JSON.stringify(c)}\n`);
      }),
    close: () => child.stdin.end(),
  };
}
