/**
 * The headers every response of a local server (the viewer, the inspector relay) carries, whatever its route or status:
 * no page of another site may frame it (`frame-ancestors 'none'`, and `X-Frame-Options: DENY` for browsers without
 * CSP level 2: a page on another 127.0.0.1 port could otherwise frame the logged-in viewer and trick clicks into it),
 * the content type is not guessed, and the page's policy says what it may load (its own files only, for the viewer).
 */
import type { ServerResponse } from 'node:http';

/** The viewer's policy: its own script, style and data; nothing from elsewhere; never framed. */
export const VIEWER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // The diagram's SVG has a <style> element and the panes set `style` attributes (colours per tool_use id).
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Sets the headers on `res` (before `writeHead`, which keeps them): call first thing for every request. */
export function setSecurityHeaders(res: ServerResponse, csp: string): void {
  res.setHeader('content-security-policy', csp);
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
}
