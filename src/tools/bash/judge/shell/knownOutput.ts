/**
 * What a simple command writes to its standard output, when that is known without running it:
 * `echo` and `printf` of known words, `cat` (or `tee`) passing on known input, `base64 -d` and
 * `xxd -r -p` of known input. The output of another decoder is marked as decoded (a shell fed
 * with it runs something nobody can read in the command line).
 */
import { basename, commandWords } from './commandWords.js';
import type { Flow, SimpleCommand } from './types.js';

const DECODERS = new Set([
  'base64', 'base32', 'basenc', 'xxd', 'uudecode', 'openssl', 'gpg',
  'gunzip', 'zcat', 'gzip', 'bunzip2', 'bzcat', 'bzip2', 'unxz', 'xzcat', 'xz', 'zstd', 'unzstd', 'zstdcat',
  'rev', 'tr', 'rot13',
]);

export function outputOf(command: SimpleCommand): Flow {
  const [first, ...args] = commandWords(command.words.map((w) => w.value));
  const name = typeof first === 'string' ? basename(first) : undefined;
  const stdin = command.stdin;
  switch (name) {
    case 'echo':
      return echo(args);
    case 'printf':
      return printf(args);
    case 'cat':
    case 'tee':
      if (args.every((a) => a === '-' || (name === 'tee' && a?.startsWith('-')))) return stdin ?? { kind: 'command', command };
      break;
    case 'base64':
      if (args.some((a) => /^-[A-Za-z]*[dD]/.test(a ?? '') || a === '--decode')) {
        if (stdin?.kind === 'text' && args.every((a) => a?.startsWith('-'))) return decoded(Buffer.from(stdin.text, 'base64'), name);
        return { kind: 'decoded', by: name };
      }
      break;
    case 'xxd':
      if (args.some((a) => /^-[A-Za-z]*r/.test(a ?? ''))) {
        if (stdin?.kind === 'text' && args.includes('-p') && args.every((a) => a?.startsWith('-'))) {
          return decoded(Buffer.from(stdin.text.replace(/\s+/g, ''), 'hex'), name);
        }
        return { kind: 'decoded', by: name };
      }
      break;
  }
  if (name !== undefined && DECODERS.has(name)) return { kind: 'decoded', by: name };
  return { kind: 'command', command };
}

function decoded(bytes: Buffer, by: string): Flow {
  const text = bytes.toString('utf8');
  return text.includes('\uFFFD') ? { kind: 'decoded', by } : { kind: 'text', text };
}

function echo(args: (string | null)[]): Flow {
  let newline = true;
  let escapes = false;
  let i = 0;
  for (; i < args.length && /^-[neE]+$/.test(args[i] ?? ''); i++) {
    const flags = args[i] as string;
    if (flags.includes('n')) newline = false;
    if (flags.includes('e')) escapes = true;
    if (flags.includes('E')) escapes = false;
  }
  const rest = args.slice(i);
  if (rest.some((a) => a === null)) return { kind: 'unknown' };
  const text = rest.join(' ');
  return { kind: 'text', text: (escapes ? backslashEscapes(text) : text) + (newline ? '\n' : '') };
}

/** `printf FORMAT ARGS...` with `%s`, `%b`, `%d`, `%c` and `%%`; the format is reused while arguments remain. */
function printf(args: (string | null)[]): Flow {
  const [format, ...values] = args;
  if (format === undefined || format === null || format === '--' || values.some((v) => v === null)) return { kind: 'unknown' };
  const rest = values as string[];
  let out = '';
  let used = 0;
  do {
    let consumed = 0;
    out += backslashEscapes(format).replace(/%(-?\d*)([sbdc%])/g, (_, __, conv: string) => {
      if (conv === '%') return '%';
      consumed++;
      const v = rest[used++] ?? '';
      return conv === 'b' ? backslashEscapes(v) : conv === 'c' ? v.slice(0, 1) : v;
    });
    if (consumed === 0) break;
  } while (used < rest.length);
  return { kind: 'text', text: out };
}

function backslashEscapes(text: string): string {
  const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', a: '\x07', v: '\v', f: '\f', e: '\x1b' };
  return text.replace(/\\(x[0-9A-Fa-f]{1,2}|0?[0-7]{1,3}|.)/g, (m, e: string) => {
    if (e.startsWith('x')) return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return map[e] ?? m;
  });
}
