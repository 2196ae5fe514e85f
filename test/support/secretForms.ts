/** The forms a secret may take in what agentloop writes (core/redact.ts promises to find each), for the secrets tests. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

/** A credential with characters that JSON, URLs and HTML each write differently. */
export const PASSWORD = 'hunter2 "quoted" & <tagged> / 100%';

export const FORMS: Record<string, (t: string) => string> = {
  raw: (t) => t,
  json: (t) => JSON.stringify(t).slice(1, -1),
  url: encodeURIComponent,
  html: (t) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
};

/** Expects `text` (found at `where`) to hold none of `secrets` in any of the forms. */
export function expectNoSecret(where: string, text: string, secrets: readonly string[]): void {
  for (const secret of secrets) for (const [name, form] of Object.entries(FORMS)) expect(text, `${where} holds the ${name} form of ${secret}`).not.toContain(form(secret));
}

/** Every file under `dir`, read as text and joined: what a run left on disk, to search for a secret. */
export function textUnder(dir: string): string {
  let out = '';
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    out += statSync(path).isDirectory() ? textUnder(path) : `${readFileSync(path, 'utf8')}\n`;
  }
  return out;
}
