/**
 * `agentloop view [ID]`, and the live pages of a run: `--view` (the local step-through viewer)
 * and `--inspect` (the Stately inspector). Loaded only when one of them is asked for.
 */
import type { InspectionEvent, Observer } from 'xstate';
import { startStatelyInspector, STATELY_INSPECTOR_URL } from '../../inspect/stately.js';
import { agentloopHome, findSession, SessionNotFoundError } from '../../transcript/store.js';
import { startViewer } from '../../view/server/server.js';
import { PortError } from '../../loopback/listen.js';
import { Stepper, type Effect } from '../../run/gate.js';
import { selfCommand } from '../commandLine/self.js';
import type { CliOptions } from '../commandLine/args.js';
import { outputRedactor, shown } from '../printers/terminal.js';

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
    io.stderr.write(`agentloop: ${shown(error.message)}\n`);
    return 2;
  }
  const viewer = await startViewer({
    home,
    cwd: io.cwd,
    ...(sessionId ? { sessionId } : {}),
    ...(compare ? { compare } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    command: selfCommand(),
    redactor: outputRedactor(),
    ...(options.lang ? { lang: options.lang } : {}),
  }).catch((error: unknown) => {
    if (error instanceof PortError) return error;
    throw error;
  });
  if (viewer instanceof PortError) {
    io.stderr.write(`agentloop: ${viewer.message}\n`);
    return 2;
  }
  io.stdout.write(`${viewer.url}\n`);
  io.stderr.write('Serving the step-through viewer on 127.0.0.1; press Ctrl-C to stop.\n');
  await waitForInterrupt();
  await viewer.close();
  return 0;
}

export interface LivePages {
  /** For `runAgent`'s `inspect` option when `--inspect` is on. */
  inspect: Observer<InspectionEvent> | undefined;
  /** For `runAgent`'s `gate` option when `--step` is on: the page lets the run go on. */
  gate?: Stepper;
  /** Whether a page is being served (the process then waits for Ctrl-C after the run). */
  serving: boolean;
  close(): Promise<void>;
}

/** What a stepped run waits before, in a few words. */
function effectText(effect: Effect): string {
  switch (effect.type) {
    case 'request':
      return `the model request (turn ${effect.turnCount}, ${effect.messageCount} message${effect.messageCount === 1 ? '' : 's'})`;
    case 'reply': {
      const uses = effect.content.filter((b) => b.type === 'tool_use').length;
      return `the loop reads the reply (turn ${effect.turnCount}: stop_reason ${effect.stopReason}, ${uses} tool_use block${uses === 1 ? '' : 's'})`;
    }
    case 'tool_start': {
      if (effect.display !== undefined) return effect.display;
      const command = (effect.block.input as { command?: unknown } | null)?.command;
      return `${effect.block.name}: ${typeof command === 'string' ? command : JSON.stringify(effect.block.input)}`;
    }
    case 'append':
      return `appending ${effect.results.length} tool_result block${effect.results.length === 1 ? '' : 's'} to messages`;
    case 'end':
      return `handing the answer to the user (the run ends in ${effect.state})`;
  }
}

/** `--step`: each time the run stops, one line on stderr says so (the first with the page's URL). */
function tellWhereItWaits(stepper: Stepper, url: string, stderr: NodeJS.WritableStream): void {
  let told = false;
  stepper.subscribe((state) => {
    if (!state.waiting) return;
    // The command as a terminal may show it (../printers/terminal.ts): it came from the model.
    const what = shown(effectText(state.waiting));
    stderr.write(told ? `[step] waiting for the page before ${what}\n` : `[step] the run waits for the page before ${what}: press Next (or Run to the end) at ${url}\n`);
    told = true;
  });
}

type Page = { close(): Promise<void> };

/** `--view` (and `--step`): the live viewer of this session, with the gate the page opens. */
async function startLiveViewer(options: CliOptions, session: { id: string; recorded: boolean }, io: ViewIo, port: number | undefined) {
  if (!session.recorded) {
    io.stderr.write(`viewer: not started, the session is not being saved${options.step ? ' (so --step cannot stop the run: it runs through)' : ''}\n`);
    return undefined;
  }
  const gate = options.step ? new Stepper() : undefined;
  const viewer = await startViewer({
    home: agentloopHome(io.env),
    cwd: io.cwd,
    sessionId: session.id,
    live: true,
    ...(port !== undefined ? { port } : {}),
    ...(gate ? { stepper: gate } : {}),
    command: selfCommand(),
    redactor: outputRedactor(),
    ...(options.lang ? { lang: options.lang } : {}),
  });
  io.stderr.write(`viewer: ${viewer.url}\n`);
  if (gate) tellWhereItWaits(gate, viewer.url, io.stderr);
  return { viewer, gate };
}

/** `--inspect`: the relay to the Stately page; offline, the page and the terminal point to the local viewer instead. */
async function startInspector(session: { id: string; recorded: boolean }, io: ViewIo, port: number | undefined, viewerUrl: string | undefined) {
  const offline = viewerUrl ? { viewerUrl } : session.recorded ? { command: `${selfCommand()} view ${session.id}` } : {};
  const where = offline.viewerUrl ?? offline.command;
  const inspector = await startStatelyInspector({
    ...(port !== undefined ? { port } : {}),
    redactor: outputRedactor(),
    offline,
    onUnavailable: (reason) =>
      io.stderr.write(`Stately inspector: the page could not load ${STATELY_INSPECTOR_URL} (${reason})${where ? `; step through this run offline: ${where}` : ''}\n`),
  });
  io.stderr.write(`Stately inspector: ${inspector.url} (the page embeds ${STATELY_INSPECTOR_URL}: it needs the internet)\n`);
  return inspector;
}

/** Starts what `--view` and `--inspect` ask for, and says on stderr where to look. */
export async function startLivePages(options: CliOptions, session: { id: string; recorded: boolean }, io: ViewIo): Promise<LivePages> {
  const port = options.view && options.inspect ? undefined : options.port;
  const pages: Page[] = [];
  const live = options.view ? await startLiveViewer(options, session, io, port) : undefined;
  if (live) pages.push(live.viewer);
  const inspector = options.inspect ? await startInspector(session, io, port, live?.viewer.url) : undefined;
  if (inspector) pages.push(inspector);
  return {
    inspect: inspector?.inspect,
    ...(live?.gate ? { gate: live.gate } : {}),
    serving: pages.length > 0,
    async close() {
      await Promise.all(pages.map((page) => page.close()));
    },
  };
}
