/**
 * The redactor: every text agentloop writes (the transcript, stdout, stderr, stream-json, the viewer's API, the
 * inspector relay's events, a tool's result) goes through one, made once per run from the API key, the auth token
 * and the credential values withheld from the tools. Each value is replaced by `[redacted NAME]`.
 *
 * What it promises: a value of at least `MIN_SECRET_LENGTH` characters is found wherever it stands in a text (an
 * error message, an HTML page, a JSON body inside a message, a header echoed back), as it is and with any of its
 * characters in the forms JSON (`\"`, `\/`, `\u00XX`), URLs (`%XX` in either case, `+` for a space) and HTML
 * (`&amp;`, `&#34;`, `&#x22;`, ...) give them. Letters, digits and `-_.~` have no other form there, so an API key is
 * found as itself. Not promised: a value split over lines or pieces (two stream deltas), cut short, in another case,
 * or otherwise transformed (base64, reversed, hashed).
 */

/** A value never to be shown, and the name it is shown as. */
export interface SecretValue {
  name: string;
  value: string;
}

/** Shorter values would cut ordinary words out of what is written. */
export const MIN_SECRET_LENGTH = 8;

export interface Redactor {
  /** Whether there is anything to cut (without secrets every method gives back what it got). */
  readonly active: boolean;
  /** `text` with every secret replaced by `[redacted NAME]`. */
  text(text: string): string;
  /** `value` with every string in it (keys too) redacted: a copy where something was cut, else `value` itself. */
  value<T>(value: T): T;
  /** `JSON.stringify(value)`, its strings redacted: the same JSON, still valid. */
  json(value: unknown): string;
  /** A JSON text, its strings redacted (a text that is not JSON is redacted as text). */
  jsonText(text: string): string;
}

/** Characters that every form above leaves as they are. */
const PLAIN = /^[A-Za-z0-9_.~-]$/;
const NAMED: Record<string, string> = { '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' };
const utf8 = new TextEncoder();

const escapeRegExp = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/-]/g, (c) => `\\${c}`);
/** Hex digits of `n` matching either case, e.g. `2[fF]`. */
const hex = (n: number, width: number) =>
  n.toString(16).padStart(width, '0').replace(/[a-f]/g, (d) => `[${d}${d.toUpperCase()}]`);

/** A pattern for one character in every form it may take. */
function charPattern(char: string): string {
  if (PLAIN.test(char)) return escapeRegExp(char);
  const cp = char.codePointAt(0) as number;
  const forms = new Set([escapeRegExp(char), escapeRegExp(JSON.stringify(char).slice(1, -1))]);
  if (char === '/') forms.add('\\\\\\/');
  const units = char.length === 1 ? [cp] : [char.charCodeAt(0), char.charCodeAt(1)];
  forms.add(units.map((u) => `\\\\u${hex(u, 4)}`).join(''));
  forms.add([...utf8.encode(char)].map((b) => `%${hex(b, 2)}`).join(''));
  if (char === ' ') forms.add('\\+');
  forms.add(`&#0*${cp};`);
  forms.add(`&#[xX]0*${hex(cp, 1)};`);
  if (NAMED[char]) forms.add(`&${NAMED[char]};`);
  return `(?:${[...forms].join('|')})`;
}

interface Compiled {
  replacement: string;
  /** The longest run of plain characters: no form of the value is without it. */
  anchor: string;
  pattern: RegExp;
}

function compile(secret: SecretValue): Compiled {
  const anchor = secret.value.split(/[^A-Za-z0-9_.~-]+/).reduce((a, b) => (b.length > a.length ? b : a), '');
  const source = [...secret.value].map(charPattern).join('');
  return { replacement: `[redacted ${secret.name}]`, anchor, pattern: new RegExp(source, 'g') };
}

/** The secrets as a redactor takes them: long enough, each value once, the longest first (a longer value holding a shorter one is cut whole). */
export function redactionOrder(secrets: readonly SecretValue[]): SecretValue[] {
  const seen = new Set<string>();
  return secrets
    .filter((s) => s.value.length >= MIN_SECRET_LENGTH && !seen.has(s.value) && seen.add(s.value))
    .sort((a, b) => b.value.length - a.value.length);
}

export function createRedactor(secrets: readonly SecretValue[]): Redactor {
  const ordered = redactionOrder(secrets);
  if (ordered.length === 0) return noRedaction;
  const key = ordered.map((s) => `${s.name}\0${s.value}`).join('\0');
  const made = recent.get(key) ?? compiledRedactor(ordered.map(compile));
  // The most recent few, the newest last: runs of one process with the same credentials share theirs (its patterns
  // are compiled once); a redactor holds nothing of a run, so sharing it is safe.
  recent.delete(key);
  recent.set(key, made);
  if (recent.size > RECENT_REDACTORS) recent.delete(recent.keys().next().value as string);
  return made;
}

const RECENT_REDACTORS = 8;
const recent = new Map<string, Redactor>();

function compiledRedactor(compiled: Compiled[]): Redactor {
  const mightHold = (text: string) => compiled.some((c) => text.includes(c.anchor));
  const text = (input: string): string => {
    let out = input;
    for (const c of compiled) if (out.includes(c.anchor)) out = out.replace(c.pattern, () => c.replacement);
    return out;
  };
  const value = <T>(input: T): T => redactValue(input, text, mightHold) as T;
  return {
    active: true,
    text,
    value,
    json: (input) => {
      const json = JSON.stringify(input);
      return json === undefined || !mightHold(json) ? json : JSON.stringify(value(input));
    },
    jsonText: (input) => {
      if (!mightHold(input)) return input;
      try {
        return JSON.stringify(value(JSON.parse(input)));
      } catch {
        return text(input);
      }
    },
  };
}

/** A copy of `input` with `text` applied to every string (and key) that might hold a secret; `input` if none did. */
function redactValue(input: unknown, text: (s: string) => string, mightHold: (s: string) => boolean): unknown {
  if (typeof input === 'string') return mightHold(input) ? text(input) : input;
  if (input === null || typeof input !== 'object') return input;
  if (Array.isArray(input)) {
    const items = input.map((item) => redactValue(item, text, mightHold));
    return items.some((item, i) => item !== input[i]) ? items : input;
  }
  let changed = false;
  const entries = Object.entries(input).map(([key, item]) => {
    const entry = [redactValue(key, text, mightHold), redactValue(item, text, mightHold)] as const;
    if (entry[0] !== key || entry[1] !== item) changed = true;
    return entry;
  });
  return changed ? Object.fromEntries(entries) : input;
}

/** The redactor of a run without secrets: everything as it is. */
export const noRedaction: Redactor = {
  active: false,
  text: (text) => text,
  value: (value) => value,
  json: (value) => JSON.stringify(value),
  jsonText: (text) => text,
};

/** A redactor that may be told more secrets as a run is set up (an MCP server's configuration read after start). */
export interface LearningRedactor extends Redactor {
  /** Every text given from now on has `secrets` cut out too (the redactor is the same object: who holds it sees them). */
  learn(secrets: readonly SecretValue[]): void;
}

/** A redactor of `secrets` and of whatever it learns later. */
export function learningRedactor(secrets: readonly SecretValue[] = []): LearningRedactor {
  let known = redactionOrder(secrets);
  let current = createRedactor(known);
  return {
    get active() {
      return current.active;
    },
    text: (text) => current.text(text),
    value: (value) => current.value(value),
    json: (value) => current.json(value),
    jsonText: (text) => current.jsonText(text),
    learn(more) {
      const next = redactionOrder([...known, ...more]);
      if (next.length === known.length) return;
      known = next;
      current = createRedactor(known);
    },
  };
}
