/**
 * What the Anthropic SDK's modules see, in the CLI's bundle (scripts/build-cli.mjs), for the Fetch globals whose
 * first touch loads all of undici (20 ms of a fresh process's start, 2 MB of its heap): the loop's requests go
 * through Node's http (httpFetch.ts) and never need it.
 * - `Headers`: FetchHeaders (headers.ts), with which the SDK builds a request's headers and httpFetch gives a
 *   response's.
 * - `FormData`: only what `instanceof FormData` asks of it, as the SDK asks it of a request's body. A FormData is a
 *   FormData by its tag, undici's own `Symbol.toStringTag`; the check never touches the global (a program that made one
 *   has loaded undici already; the loop makes none).
 */
export { FetchHeaders as Headers } from './headers.js';

export const FormData = {
  [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && Object.prototype.toString.call(value) === '[object FormData]';
  },
};
