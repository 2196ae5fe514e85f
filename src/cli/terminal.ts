/**
 * What the CLI prints of text that came from outside (the model's answer, a tool's command and output, an API error,
 * a transcript's ids and prompts): every printer passes it through `shown` first, and adds its own colours after.
 */
import { visible } from '../core/visible.js';

/** `text` as a terminal may get it: control characters shown (core/visible.ts), never interpreted. */
export function shown(text: string): string {
  return visible(text);
}
