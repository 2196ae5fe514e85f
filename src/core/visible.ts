/**
 * Text that came from outside (the model, a tool, the API, a transcript), made safe to print on a terminal: every
 * character a terminal would act on instead of showing is shown instead, so an escape sequence in a model's answer
 * or a command's output cannot set the window title, clear the screen, move the cursor to draw a fake prompt, write
 * the clipboard (OSC 52), ring the bell or rewrite a line with a lone carriage return.
 *
 * - C0 controls in caret notation, as `cat -v` shows them: ESC is `^[`, BEL `^G`, a lone CR `^M`, NUL `^@`;
 *   DEL is `^?`. A tab and a newline are kept (and CR before LF, which moves nothing a newline would not).
 * - C1 controls (U+0080-U+009F: CSI, OSC, ST, ... as single characters) as `cat -v` shows their byte: `M-^[` for
 *   U+009B.
 * - Bidirectional controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C), which reorder what is shown
 *   (text that reads differently from what it is), as `<U+202E>`.
 *
 * agentloop's own colours are added after this, around text already shown this way. JSON output is never passed
 * through it: it goes through `jsonEscaped`, which keeps the data exact.
 */
const SHOWN = /\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function show(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
  if (code === 0x7f) return '^?';
  if (code <= 0x9f) return `M-^${String.fromCharCode(code - 0x80 + 0x40)}`;
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

export function visible(text: string): string {
  return text.replace(SHOWN, show);
}

/** What JSON.stringify leaves raw of the characters above: DEL, the C1 controls, the bidirectional ones (and U+2028/9). */
const RAW_IN_JSON = /[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * A JSON text with every character a terminal would act on written as a `\uXXXX` escape: the same data for any JSON
 * reader, nothing for a terminal to interpret (JSON.stringify escapes C0 controls itself, not these). They only stand
 * inside strings, where the escape means the same character.
 */
export function jsonEscaped(json: string): string {
  return json.replace(RAW_IN_JSON, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
