/**
 * The Fetch standard's `Headers`, as the loop's client uses them (issue 40): the SDK builds a request's headers with
 * them and reads a response's (in the CLI's bundle, the SDK's modules see this class as `Headers`: sdkGlobals.ts),
 * and httpFetch.ts answers with them. Node's own `Headers` is undici's: the first touch of
 * the global loads all of undici, 20 ms of a fresh process's start and 2 MB of its heap, for a class the loop uses as a
 * sorted map. headers-polyfill reads `globalThis.Headers` in its constructor, which loads undici all the same.
 *
 * What holds, as Node's (test/anthropic/headers.test.ts, side by side with the global's): names are case-insensitive
 * and kept in lower case; a value loses its leading and trailing white space; a name that is not an HTTP token, or a
 * value with a NUL, CR or LF, is a TypeError; values of one name are joined with ", " (set-cookie's are kept apart:
 * `getSetCookie`); iteration is in the order of the names.
 */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FORBIDDEN_VALUE = /[\0\r\n]/;
const EDGE_SPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

type Init = Iterable<readonly [string, string]> | Iterable<readonly string[]> | Record<string, string> | undefined | null;

export class FetchHeaders {
  /** Lower-case name → its values, in the order they were added. */
  readonly #values = new Map<string, string[]>();

  constructor(init?: Init) {
    if (init === undefined || init === null) return;
    if (typeof (init as Iterable<unknown>)[Symbol.iterator] === 'function') {
      for (const pair of init as Iterable<readonly string[]>) {
        if (pair.length !== 2) throw new TypeError('Headers constructor: expected name/value pair to be length 2');
        this.append(pair[0] as string, pair[1] as string);
      }
      return;
    }
    for (const [name, value] of Object.entries(init as Record<string, string>)) this.append(name, value);
  }

  append(name: string, value: string): void {
    const [key, text] = checked(name, value);
    const values = this.#values.get(key);
    if (values) values.push(text);
    else this.#values.set(key, [text]);
  }

  set(name: string, value: string): void {
    const [key, text] = checked(name, value);
    this.#values.set(key, [text]);
  }

  delete(name: string): void {
    this.#values.delete(checkedName(name));
  }

  get(name: string): string | null {
    return this.#values.get(checkedName(name))?.join(', ') ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(checkedName(name));
  }

  getSetCookie(): string[] {
    return [...(this.#values.get('set-cookie') ?? [])];
  }

  forEach(callback: (value: string, name: string, headers: FetchHeaders) => void, thisArg?: unknown): void {
    for (const [name, value] of this.entries()) callback.call(thisArg, value, name, this);
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of [...this.#values.keys()].sort()) {
      const values = this.#values.get(name) as string[];
      if (name === 'set-cookie') for (const value of values) yield [name, value];
      else yield [name, values.join(', ')];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }
}

function checkedName(name: string): string {
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`Headers: invalid header name: ${JSON.stringify(text)}`);
  return text.toLowerCase();
}

function checked(name: string, value: string): [string, string] {
  const key = checkedName(name);
  const text = String(value).replace(EDGE_SPACE, '');
  if (FORBIDDEN_VALUE.test(text)) throw new TypeError(`Headers: invalid value of header ${JSON.stringify(key)}`);
  return [key, text];
}
