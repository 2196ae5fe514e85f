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
 * policy, so attempts never multiply.
 */
export function clientOptions(settings: ClientSettings): ClientOptions {
  return {
    apiKey: settings.apiKey ?? null,
    authToken: settings.authToken ?? null,
    ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
    ...(settings.timeoutMs ? { timeout: settings.timeoutMs } : {}),
    maxRetries: 0,
    logLevel: 'off',
  };
}

/** A whole SDK client (every resource) with the loop's options. */
export function createClient(settings: ClientSettings): Anthropic {
  return new Anthropic(clientOptions(settings));
}
