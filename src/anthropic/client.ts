/**
 * The client the loop calls the Messages API with: the SDK's base client (its fetch, headers, timeouts, errors) with
 * the Messages resource alone. The SDK's `Anthropic` class carries every resource of the platform (beta, organization,
 * files, skills...: over a megabyte of the CLI's bundle), which a fresh process would compile before its first request
 * and never call (`npx tsx bench/engine.ts`, issue 27's 9a). `createClient` still gives the whole client to a
 * program that wants one; the CLI's bundle leaves it out, as it calls it nowhere.
 */
import Anthropic from '@anthropic-ai/sdk';
import { BaseAnthropic, type ClientOptions } from '@anthropic-ai/sdk/client';
import { Messages } from '@anthropic-ai/sdk/resources/messages/messages';
import { httpFetch } from './httpFetch.js';

/** What the loop needs of a client: `messages.create`. An `Anthropic` client is one. */
export type MessagesApi = Pick<Anthropic, 'messages'>;

/** The base client with `messages`, nothing else. */
export class MessagesClient extends BaseAnthropic {
  messages = new Messages(this);
}

export interface ClientSettings {
  apiKey?: string;
  /** Sent as `Authorization: Bearer`, for gateways that want a token rather than a key. */
  authToken?: string;
  baseURL?: string;
  /** Time allowed for the response headers to arrive (default 10 minutes, as the SDK). */
  timeoutMs?: number;
}

/**
 * The SDK client's options for the loop. The SDK's own retries are off: the machine's retry state is the one retry
 * policy, so attempts never multiply. Its requests go through Node's `http` (httpFetch.ts), not the global fetch.
 */
export function clientOptions(settings: ClientSettings): ClientOptions {
  return {
    apiKey: settings.apiKey ?? null,
    authToken: settings.authToken ?? null,
    ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
    ...(settings.timeoutMs ? { timeout: settings.timeoutMs } : {}),
    maxRetries: 0,
    logLevel: 'off',
    fetch: httpFetch,
  };
}

/**
 * The client of the runs with these settings: one per process for each set of settings, shared by every run that has
 * them, as one program keeps one SDK client. A client holds nothing of a run (each request has its own signal, body
 * and timeout; the connections are fetch's, shared anyway); building one a run cost each of 1,000 runs at once its
 * share of the start (bench/many.ts). Keyed by what the client is built from: the key or token, the base URL, the
 * timeout, and the SDK's own variables it reads as it is built (`ANTHROPIC_BASE_URL`, `ANTHROPIC_LOG`,
 * `ANTHROPIC_CUSTOM_HEADERS`), so a run with other settings, or after the environment changed, gets its own. Settings
 * without a key or token get a new client each time: the SDK then resolves its credential chain (files that may
 * change) as it is built.
 */
export function sharedClient(settings: ClientSettings): MessagesClient {
  if (!settings.apiKey && !settings.authToken) return new MessagesClient(clientOptions(settings));
  const env = process.env; // what the SDK reads as it builds a client
  const key = JSON.stringify([
    settings.apiKey ?? null,
    settings.authToken ?? null,
    settings.baseURL || (env.ANTHROPIC_BASE_URL ?? null),
    settings.timeoutMs ?? null,
    env.ANTHROPIC_LOG ?? null,
    env.ANTHROPIC_CUSTOM_HEADERS ?? null,
  ]);
  const client = clients.get(key) ?? new MessagesClient(clientOptions(settings));
  clients.delete(key); // the most recent last
  clients.set(key, client);
  if (clients.size > SHARED_CLIENTS) clients.delete(clients.keys().next().value as string);
  return client;
}

/** The clients of the last few settings (a program with more sets of settings builds the others again). */
const SHARED_CLIENTS = 8;
const clients = new Map<string, MessagesClient>();

/** A whole SDK client (every resource) with the loop's options. */
export function createClient(settings: ClientSettings): Anthropic {
  return new Anthropic(clientOptions(settings));
}
