/**
 * The viewer's server API. Every call carries the page's own `token` query parameter, if its URL
 * has one (the server may require it), so the page works with whatever URL it was opened with.
 */
import type { StepperState } from '../../run/gate.js';
import type { Timeline } from '../timeline/build.js';
import type { WaitingCallView } from '../server/approvals.js';

export interface MachineView {
  /** The diagram's SVG markup (src/diagram/svg.ts). */
  svg: string;
  /** The edges in the SVG's order (`data-edge` is the index). */
  edges: Array<{ id: string; label: string }>;
}

export interface SessionSummary {
  id: string;
  updatedAt: string;
  firstPrompt?: string | null;
  label?: string;
  turns?: number;
  exitReason?: string | null;
  /** The process writing the session now, if one is. */
  running?: { pid: number } | null;
}

export function apiUrl(path: string): string {
  const token = new URLSearchParams(location.search).get('token');
  if (!token) return path;
  return `${path}${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;
}

async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(apiUrl(path));
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return (await response.json()) as T;
}

export const fetchMachine = () => getJson<MachineView>('/api/machine');
export const fetchSessions = () => getJson<SessionSummary[]>('/api/sessions');

/**
 * Follows a session: `onTimeline` gets the whole timeline now and whenever it grows; `onStep` what a stepped run waits
 * before; `onApprovals` a durable run's calls that wait for an approval (`view --restate`), whenever they change.
 */
export function followSession(id: string, onTimeline: (timeline: Timeline) => void, onStep?: (state: StepperState) => void, onApprovals?: (calls: WaitingCallView[]) => void): EventSource {
  const source = new EventSource(apiUrl(`/api/sessions/${encodeURIComponent(id)}/events`));
  source.addEventListener('timeline', (event) => onTimeline(JSON.parse((event as MessageEvent<string>).data) as Timeline));
  if (onStep) source.addEventListener('step', (event) => onStep(JSON.parse((event as MessageEvent<string>).data) as StepperState));
  if (onApprovals) source.addEventListener('approvals', (event) => onApprovals(JSON.parse((event as MessageEvent<string>).data) as WaitingCallView[]));
  return source;
}

/** Lets a stepped run go on: one effect (`next`), or to the end (`run`). */
export async function releaseStep(how: 'next' | 'run'): Promise<StepperState> {
  const response = await fetch(apiUrl(`/api/step/${how}`), { method: 'POST' });
  if (!response.ok) throw new Error(`/api/step/${how}: ${response.status}`);
  return (await response.json()) as StepperState;
}
