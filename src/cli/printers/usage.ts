/** The usage line after a text-mode run (--verbose) and after each of the REPL's: turns, tokens, time, the session. */
import type { Usage } from '../../core/usage.js';
import type { RunResult } from '../../run/runAgent.js';

const number = (n: number) => n.toLocaleString('en-US');

/** One line for stderr after a text-mode run: turns, tokens (with cache reads and writes), time. */
export function usageSummary(result: RunResult): string {
  const u: Usage = result.context.usage;
  const cache =
    u.cache_read_input_tokens || u.cache_creation_input_tokens
      ? ` (+${number(u.cache_read_input_tokens)} cache read, +${number(u.cache_creation_input_tokens)} cache write)`
      : '';
  const turns = result.context.turnUsage.length;
  const seconds = (result.durationMs / 1000).toFixed(1);
  // A scripted model (the offline demo, a test) reports no usage: say so, not "0 in · 0 out".
  const counted = u.input_tokens || u.output_tokens || cache;
  const tokens = counted ? `${number(u.input_tokens)} in${cache} · ${number(u.output_tokens)} out` : 'no tokens reported';
  return `${turns} model call${turns === 1 ? '' : 's'} · ${tokens} · ${seconds} s · session ${result.sessionId}`;
}
