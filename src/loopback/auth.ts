/**
 * The token that local servers (the viewer, the inspector relay) ask of every request: random per
 * start, printed in the URL they show, compared in constant time. 127.0.0.1 is reachable by every
 * local user; only someone who was shown the URL has the token.
 *
 * A browser carries it from the URL (`?token=`) on the first load; the server then sets a cookie
 * (HttpOnly, SameSite=Strict, named after the port, as Jupyter does) so that the page's own
 * requests and EventSource carry it without the page knowing it. Scripts may send
 * `Authorization: Bearer TOKEN`.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison (of digests, so that lengths do not show either). */
export function sameToken(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

export function tokenCookieName(kind: string, port: number): string {
  return `agentloop-${kind}-${port}`;
}

/** The token a request carries: in the query, an `Authorization: Bearer` header, or the cookie. */
export function requestToken(req: IncomingMessage, url: URL, cookieName: string): string | undefined {
  const query = url.searchParams.get('token');
  if (query !== null) return query;
  const auth = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (auth !== undefined) return auth;
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === cookieName) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export type TokenCheck = { ok: true; fromQuery: boolean } | { ok: false; status: 401 | 403; error: string };

export function checkToken(req: IncomingMessage, url: URL, cookieName: string, expected: string): TokenCheck {
  const given = requestToken(req, url, cookieName);
  if (given === undefined) return { ok: false, status: 401, error: 'a token is needed: open the URL agentloop printed (it carries ?token=...)' };
  if (!sameToken(given, expected)) return { ok: false, status: 403, error: 'wrong token' };
  return { ok: true, fromQuery: url.searchParams.has('token') };
}

/** The Set-Cookie header value that keeps the token for the page's own requests. */
export function tokenCookie(cookieName: string, token: string): string {
  return `${cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/`;
}
