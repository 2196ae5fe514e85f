/** Two runs side by side: where their requests first differ (the bodies as sent, rebuilt from each transcript). */
import type { Timeline } from '../timeline/build.js';
import { requestBody } from '../timeline/history.js';
import type { Lang } from '../texts/line.js';
import { tr } from '../texts/render.js';

export interface Divergence {
  /** Index (from 0) of the first request that is not the same in both runs. */
  request: number;
  /** The first index of `messages` where the two bodies differ; `null` when one run sent no such request, or only the settings differ. */
  message: number | null;
  /** The step each view shows it at: the request's own step, or the run's last step when it sent no such request. */
  steps: [number, number];
  /** Messages each run sends in it (`null`: no such request). */
  counts: [number | null, number | null];
}

type Body = { messages: unknown[] } & Record<string, unknown>;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The first request where `a` and `b` differ, or `null` when every request is the same in both. */
export function firstDivergence(a: Timeline, b: Timeline): Divergence | null {
  const count = Math.max(a.requests.length, b.requests.length);
  for (let i = 0; i < count; i++) {
    const ra = a.requests[i];
    const rb = b.requests[i];
    const bodyA = ra ? (requestBody(a, ra) as Body) : undefined;
    const bodyB = rb ? (requestBody(b, rb) as Body) : undefined;
    if (bodyA && bodyB && same(bodyA, bodyB)) continue;
    let message: number | null = null;
    if (bodyA && bodyB) {
      const n = Math.max(bodyA.messages.length, bodyB.messages.length);
      for (let k = 0; k < n && message === null; k++) if (!same(bodyA.messages[k], bodyB.messages[k])) message = k;
    }
    return {
      request: i,
      message,
      steps: [ra ? ra.step : Math.max(0, a.steps.length - 1), rb ? rb.step : Math.max(0, b.steps.length - 1)],
      counts: [bodyA ? bodyA.messages.length : null, bodyB ? bodyB.messages.length : null],
    };
  }
  return null;
}

/** The banner's sentence. */
export function describeDivergence(d: Divergence | null, lang: Lang = 'en'): string {
  if (!d) return tr(lang, 'compare.same');
  return tr(lang, 'compare.differ', { number: d.request + 1, a: d.counts[0], b: d.counts[1], message: d.message });
}
