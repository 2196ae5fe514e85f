/**
 * The model side of the durable subagent tests (children.restate, childControl.restate): a parent whose first reply
 * asks for one Agent call per child named in its prompt (`case K: a b`), each child appending to its own log with bash,
 * then answering; the test holds a child at a point (its first request, its tool, its second request) to kill or
 * cancel there. Requests are told apart by who sent them (the parent, or the child by its log's name) and how long
 * their history is, so a test counts each request sent.
 */
import type { RequestBody, Step } from '../support/messagesServer.js';
import { startCluster, type Cluster } from './cluster.js';

export const AGENTS = { logger: { description: 'Appends to a log', prompt: 'You are the logger agent.', tools: ['Bash'] } };

export type Point = 'first request' | 'tool' | 'second request';

const isChild = (body: RequestBody) => JSON.stringify(body.system ?? '').includes('You are the logger agent.');
export const hasToolResult = (body: RequestBody) => JSON.stringify(body.messages.at(-1)).includes('"tool_result"');
const firstText = (body: RequestBody) => JSON.stringify(body.messages[0]?.content ?? '');

/** Who sent a request: `parent K` or the child's log name (`K-a`). */
export function senderOf(body: RequestBody): string {
  if (isChild(body)) return /log (\S+?)(?:\\|")/.exec(firstText(body))?.[1] ?? 'child ?';
  return `parent ${/case (\S+):/.exec(firstText(body))?.[1] ?? '?'}`;
}

/** A request's signature: its sender and how many messages it carries (the same request sent again has the same). */
export const signatureOf = (body: RequestBody) => `${senderOf(body)} #${body.messages.length}`;

/** The worker's bash tool as the child is offered it (the agent names it `Bash`, its public name). */
const bashName = (body: RequestBody) => (body.tools ?? []).map((tool) => (tool as { name: string }).name).find((name) => name.toLowerCase() === 'bash') ?? 'Bash';
const text = (value: string): Step => ({ content: [{ type: 'text', text: value }], stop_reason: 'end_turn' });

export interface Script {
  /** Answers every request. */
  step(body: RequestBody): Step | Promise<Step>;
  /** Settles once every child named in `ids` has reached `point` (held there when the script holds it). */
  reached(ids: string[], point: Point): Promise<void>;
}

/**
 * `hold(child, point)`: whether the child's request at `point` is left unanswered the first time (true), answered once
 * a promise settles, or at once (false); for the tool, true makes its command write `started-CHILD` and sleep, still
 * running when the worker is killed.
 */
export type Hold = (child: string, point: Point) => boolean | Promise<void>;

export function childScript(hold: Hold): Script {
  const seen = new Map<string, number>();
  const waiters: { ids: string[]; point: Point; resolve: () => void }[] = [];
  const reach = (child: string, point: Point) => {
    const key = `${child} ${point}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    for (const w of waiters.filter((w) => w.point === point && w.ids.every((id) => seen.has(`${id} ${point}`)))) w.resolve();
    return seen.get(key) === 1 ? hold(child, point) : false;
  };
  const answer = (held: boolean | Promise<void>, step: () => Step): Step | Promise<Step> =>
    held === false ? step() : held === true ? new Promise<Step>(() => {}) : held.then(step);
  return {
    step(body) {
      const who = senderOf(body);
      if (!isChild(body)) {
        if (hasToolResult(body)) return text('the loggers are done');
        const [, name, children] = /case (\S+): ([^"\\]+)/.exec(firstText(body)) ?? [];
        const uses = (children ?? '').trim().split(' ').map((c) => {
          const input = { description: `log ${c}`, prompt: `append x to log ${name}-${c}`, subagent_type: 'logger' };
          return { type: 'tool_use' as const, id: `toolu_agent_${name}_${c}`, name: 'Agent', input };
        });
        return { content: uses, stop_reason: 'tool_use' };
      }
      if (!hasToolResult(body)) {
        const slow = hold(who, 'tool') === true ? `; touch started-${who}; sleep 20` : '';
        const command = `echo x >> log-${who}${slow}`;
        return answer(reach(who, 'first request'), () => ({ content: [{ type: 'tool_use', id: `toolu_bash_${who}`, name: bashName(body), input: { command } }], stop_reason: 'tool_use' }));
      }
      return answer(reach(who, 'second request'), () => text(`appended x to log-${who}`));
    },
    reached(ids, point) {
      return new Promise<void>((resolve) => {
        waiters.push({ ids, point, resolve });
        if (ids.every((id) => seen.has(`${id} ${point}`))) resolve();
      });
    },
  };
}


/** Restate's admin SQL (`/query`): the rows of `sql`. */
export async function adminQuery<Row>(cluster: Cluster, sql: string): Promise<Row[]> {
  const answer = await fetch(new URL('/query', cluster.restate.admin), { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ query: sql }) });
  return ((await answer.json()) as { rows: Row[] }).rows;
}

/** A cluster of `workers` whose model is the script (`steps` replies queued), each child held where `hold` says. */
export async function scriptedCluster(binaryPath: string, workers: number, steps: number, hold: Hold): Promise<{ cluster: Cluster; script: Script }> {
  const cluster = await startCluster(binaryPath);
  const script = childScript(hold);
  for (let i = 0; i < steps; i++) cluster.model.enqueue((body) => script.step(body));
  for (let i = 0; i < workers; i++) await cluster.addWorker();
  await cluster.register();
  return { cluster, script };
}

/** The requests of case `name`: its parent's and its children's. */
export const bodiesOf = (cluster: Cluster, name: string): RequestBody[] =>
  cluster.model.requests.map((r) => r.body as RequestBody).filter((b) => senderOf(b) === `parent ${name}` || senderOf(b).startsWith(`${name}-`));
