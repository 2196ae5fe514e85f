/**
 * `agentloop view [ID]`, and the live pages of a run: `--view` (the local step-through viewer)
 * and `--inspect` (the Stately inspector). Loaded only when one of them is asked for.
 */
import type { InspectionEvent, Observer } from 'xstate';
import { startStatelyInspector, STATELY_INSPECTOR_URL } from '../inspect/stately.js';
import { agentloopHome, findSession, SessionNotFoundError } from '../transcript/store.js';
import { startViewer } from '../view/server.js';
import type { CliOptions } from './args.js';

/** Resolves on the first SIGINT or SIGTERM. */
export function waitForInterrupt(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve(signal);
    };
    const onInt = on('SIGINT');
    const onTerm = on('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
  });
}

export interface ViewIo {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** `agentloop view [ID]`: serves the viewer until Ctrl-C; the URL goes to stdout. */
export async function viewCommand(options: CliOptions, io: ViewIo): Promise<number> {
  const home = agentloopHome(io.env);
  let sessionId: string | undefined;
  let compare: [string, string] | undefined;
  // A unique prefix of an id is enough: the page gets the whole id.
  const idOf = (given: string) => /\/([^/]+)\.jsonl$/.exec(findSession(home, given))?.[1] ?? given;
  try {
    if (options.viewId !== undefined) sessionId = idOf(options.viewId);
    if (options.compare) compare = [idOf(options.compare[0]), idOf(options.compare[1])];
  } catch (error) {
    if (!(error instanceof SessionNotFoundError)) throw error;
    io.stderr.write(`agentloop: ${error.message}\n`);
    return 2;
  }
  const viewer = await startViewer({
    home,
    cwd: io.cwd,
    ...(sessionId ? { sessionId } : {}),
    ...(compare ? { compare } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
  });
  io.stdout.write(`${viewer.url}\n`);
  io.stderr.write('Serving the step-through viewer on 127.0.0.1; press Ctrl-C to stop.\n');
  await waitForInterrupt();
  await viewer.close();
  return 0;
}

export interface LivePages {
  /** For `runAgent`'s `inspect` option when `--inspect` is on. */
  inspect: Observer<InspectionEvent> | undefined;
  /** Whether a page is being served (the process then waits for Ctrl-C after the run). */
  serving: boolean;
  close(): Promise<void>;
}

/** Starts what `--view` and `--inspect` ask for, and says on stderr where to look. */
export async function startLivePages(
  options: CliOptions,
  session: { id: string; recorded: boolean },
  io: ViewIo,
): Promise<LivePages> {
  const closers: Array<() => Promise<void>> = [];
  let inspect: Observer<InspectionEvent> | undefined;
  const port = options.view && options.inspect ? undefined : options.port;
  if (options.view) {
    if (session.recorded) {
      const viewer = await startViewer({
        home: agentloopHome(io.env),
        cwd: io.cwd,
        sessionId: session.id,
        live: true,
        ...(port !== undefined ? { port } : {}),
      });
      closers.push(() => viewer.close());
      io.stderr.write(`viewer: ${viewer.url}\n`);
    } else {
      io.stderr.write('viewer: not started, the session is not being saved\n');
    }
  }
  if (options.inspect) {
    const inspector = await startStatelyInspector(port !== undefined ? { port } : {});
    closers.push(() => inspector.close());
    inspect = inspector.inspect;
    io.stderr.write(`Stately inspector: ${inspector.url} (the page embeds ${STATELY_INSPECTOR_URL}: it needs the internet)\n`);
  }
  return {
    inspect,
    serving: closers.length > 0,
    async close() {
      await Promise.all(closers.map((close) => close()));
    },
  };
}
