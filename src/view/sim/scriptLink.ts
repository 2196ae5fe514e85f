/**
 * A simulator script kept in the page's address (`#script=…`), so an edited script survives a reload and can be sent
 * as a link: the script's JSON, UTF-8, in base64url. The page runs from file:// with no server, so the fragment (never
 * sent anywhere) is the one place to keep it.
 */
const KEY = 'script=';

/** The fragment for a script's text: compact JSON where it parses, the text as it is where it does not. */
export function scriptFragment(text: string): string {
  let compact = text;
  try {
    compact = JSON.stringify(JSON.parse(text));
  } catch {
    // kept as typed: the page says what is wrong with it when it runs
  }
  const bytes = new TextEncoder().encode(compact);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `#${KEY}${btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
}

/** The script a fragment holds, pretty-printed where it is JSON; null when it holds none or is damaged. */
export function scriptFromFragment(hash: string): string | null {
  const at = hash.indexOf(KEY);
  if (at < 0) return null;
  try {
    const binary = atob(hash.slice(at + KEY.length).replace(/-/g, '+').replace(/_/g, '/'));
    const text = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  } catch {
    return null;
  }
}
