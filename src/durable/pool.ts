/**
 * A worker and an `agentloop balancer` (balancer.ts) already registered with Restate: the worker
 * finds out whether an address is such a balancer, and joins its workers. Over HTTP/2, as the
 * balancer speaks nothing else.
 */
import { connect } from 'node:http2';
import { createServer } from 'node:net';
import { POOL_PATH } from './balancer.js';

interface PoolAnswer {
  status: number;
  body: { backends?: string[]; message?: string } | undefined;
}

function poolCall(balancer: string, body: unknown, timeoutMs: number): Promise<PoolAnswer | undefined> {
  return new Promise((resolve) => {
    const session = connect(balancer);
    const done = (answer: PoolAnswer | undefined) => {
      clearTimeout(timer);
      session.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    session.on('error', () => done(undefined));
    const request = session.request({ ':method': body === undefined ? 'GET' : 'POST', ':path': POOL_PATH, 'content-type': 'application/json' });
    let status = 0;
    let text = '';
    request.setEncoding('utf8');
    request.on('response', (headers) => (status = Number(headers[':status'])));
    request.on('data', (chunk: string) => (text += chunk));
    request.on('error', () => done(undefined));
    request.on('end', () => {
      try {
        done({ status, body: JSON.parse(text) as PoolAnswer['body'] });
      } catch {
        done(undefined); // not a balancer of ours (a worker answers 404 with text, say)
      }
    });
    request.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** The workers of the agentloop balancer at `url`; undefined when `url` is no such balancer. */
export async function balancerBackends(url: string, timeoutMs = 3000): Promise<string[] | undefined> {
  const answer = await poolCall(url, undefined, timeoutMs);
  return answer?.status === 200 && Array.isArray(answer.body?.backends) ? answer.body.backends : undefined;
}

/** Adds `worker` to the workers of the balancer at `balancer`: its list after, or why it refused. */
export async function joinBalancer(balancer: string, worker: string, timeoutMs = 3000): Promise<{ backends: string[] } | { refused: string }> {
  const answer = await poolCall(balancer, { url: worker }, timeoutMs);
  if (answer?.status === 200 && Array.isArray(answer.body?.backends)) return { backends: answer.body.backends };
  return { refused: answer?.body?.message ?? `the balancer at ${balancer} did not answer` };
}

/** Whether this machine's loopback port `port` is free now. */
function freeNow(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A port for a balancer to offer in a hint: the first of 9080 (the usual address of the workers' deployment) and the
 * ports after it that no address of `taken` uses and that is free on this machine now (9080 if none is).
 */
export async function spareBalancerPort(taken: string[], from = 9080, tries = 100): Promise<number> {
  const used = new Set(taken.map((url) => new URL(url).port));
  for (let port = from; port < from + tries; port++) {
    if (!used.has(String(port)) && (await freeNow(port))) return port;
  }
  return from;
}
