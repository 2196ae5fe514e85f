/**
 * What kind of file a path names, by name, as Claude Code's Read decides before opening it: images (sent as image
 * blocks), binary formats (refused: their bytes mean nothing as text), and device files that would block or never end.
 */
import { extname } from 'node:path';

/** Claude Code 2.1.197's binary extensions (its Read refuses them; images and PDF are read otherwise). */
const BINARY = new Set(
  (
    '.png .jpg .jpeg .gif .bmp .ico .webp .tiff .tif .mp4 .mov .avi .mkv .webm .wmv .flv .m4v .mpeg .mpg .mp3 .wav .ogg ' +
    '.flac .aac .m4a .wma .aiff .opus .zip .tar .gz .bz2 .7z .rar .xz .z .tgz .iso .exe .dll .so .dylib .bin .o .a .obj ' +
    '.lib .app .msi .deb .rpm .pdf .doc .docx .xls .xlsx .ppt .pptx .odt .ods .odp .ttf .otf .woff .woff2 .eot .pyc .pyo ' +
    '.class .jar .war .ear .node .wasm .rlib .sqlite .sqlite3 .db .mdb .idx .psd .ai .eps .sketch .fig .xd .blend .3ds ' +
    '.max .swf .fla .lockb .dat .data'
  ).split(' '),
);

export const IMAGE_TYPES: Readonly<Record<string, string>> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

const DEVICES = new Set(['/dev/zero', '/dev/random', '/dev/urandom', '/dev/full', '/dev/stdin', '/dev/tty', '/dev/console', '/dev/stdout', '/dev/stderr', '/dev/fd/0', '/dev/fd/1', '/dev/fd/2']);

/** The extension without its dot, lower-cased (`png`), or ''. */
export function extensionOf(path: string): string {
  return extname(path).toLowerCase().slice(1);
}

/** Refused by name as binary (not an image, not a PDF). */
export function isBinaryName(path: string): boolean {
  const dot = path.lastIndexOf('.');
  const ext = dot === -1 ? '' : path.slice(dot).toLowerCase();
  return BINARY.has(ext) && !(ext.slice(1) in IMAGE_TYPES) && ext !== '.pdf';
}

/** A device or /proc file that would block or produce endless output. */
export function isEndlessDevice(path: string): boolean {
  if (DEVICES.has(path)) return true;
  return path.startsWith('/proc/') && /\/fd\/[012]$/.test(path);
}

/** Width and height of a PNG, GIF, JPEG or WebP image, from its header; undefined when not found. */
export function imageSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47) return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  if (bytes.length >= 10 && bytes.toString('latin1', 0, 3) === 'GIF') return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  if (bytes.length >= 30 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return webpSize(bytes);
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) return jpegSize(bytes);
  return undefined;
}

function jpegSize(bytes: Buffer): { width: number; height: number } | undefined {
  for (let at = 2; at + 9 < bytes.length; ) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1] as number;
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  return undefined;
}

function webpSize(bytes: Buffer): { width: number; height: number } | undefined {
  const kind = bytes.toString('latin1', 12, 16);
  if (kind === 'VP8X') return { width: 1 + bytes.readUIntLE(24, 3), height: 1 + bytes.readUIntLE(27, 3) };
  if (kind === 'VP8L') {
    const bits = bytes.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  if (kind === 'VP8 ') return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  return undefined;
}
