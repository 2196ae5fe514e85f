/**
 * What the CLI writes: text that came from outside (the model's answer, a tool's command and output, an API error, a
 * transcript's ids and prompts) goes through `shown` before any printer adds its own colours, and every JSON line
 * (json, stream-json, `sessions --output-format json`) through `jsonLine`. Both cut the process's secrets out
 * (core/redact.ts); `shown` also makes control characters visible (core/visible.ts).
 *
 * One process, one configuration: the redactor is set once, by run.ts, when the key and the environment are known,
 * and handed from here to what writes elsewhere (the transcript, the viewer, the inspector relay).
 */
import { noRedaction, type LearningRedactor, type Redactor, type SecretValue } from '../../core/redact.js';
import { jsonEscaped, visible } from '../../core/visible.js';

let redactor: Redactor = noRedaction;

/** Sets the process's redactor (run.ts, once the key and the environment are read). */
export function useRedactor(next: Redactor): void {
  redactor = next;
}

/**
 * Tells the process's redactor more secrets (an MCP server's env values and headers, read after it was set): the
 * object everyone holds learns them, so what is written from then on has them cut too.
 */
export function learnSecrets(secrets: readonly SecretValue[]): void {
  if (secrets.length > 0) (redactor as Partial<LearningRedactor>).learn?.(secrets);
}

/** The process's redactor, for the transcript, the pages and runAgent. */
export function outputRedactor(): Redactor {
  return redactor;
}

/** `text` as a terminal may get it: secrets cut, control characters shown, never interpreted. */
export function shown(text: string): string {
  return visible(redactor.text(text));
}

/** A JSON line: the data exact, every control character escaped (core/visible.ts), secrets cut out of its strings. */
export function jsonLine(value: unknown): string {
  return `${jsonEscaped(redactor.json(value))}\n`;
}
