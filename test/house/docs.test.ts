/**
 * The README is a door and docs/ holds the pages: each page is held to the code where it states behaviour. Links
 * resolve, named files exist, the README's drawing of the rooms is the layer list the layers test enforces, the
 * flags the CLI page names are the ones `--help` names, and the names the pages list (exit reasons, events,
 * mistakes, library exports, states, guards, rules) are the code's.
 */
import { TAKEN } from '../../src/cli/commandLine/claudeFlags.js';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCliArgs, parseCommandLine } from '../../src/cli/commandLine/args.js';
import { helpText } from '../../src/cli/commandLine/help.js';
import * as library from '../../src/index.js';
import { agentMachine } from '../../src/machine/agentMachine.js';
import * as rules from '../../src/machine/rules.js';
import { MISTAKE_NAMES } from '../../src/mistakes/names.js';
import { LAYERS } from './rooms.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const PAGES = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
const DOCUMENTS = ['README.md', ...PAGES];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slugOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

const headingsOf = (text: string) => [...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slugOf(m[1] as string));

/** The relative links of a Markdown text: `[..](target)` and `![..](target)`, without web addresses. */
function linksOf(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string).filter((target) => !/^[a-z]+:/.test(target));
}

/** Where a link from `document` leads, and the anchor in it (if any). */
function resolveLink(document: string, target: string): { file: string; anchor?: string } {
  const [path, anchor] = target.split('#') as [string, string | undefined];
  const dir = document.includes('/') ? document.slice(0, document.lastIndexOf('/') + 1) : '';
  const file = path === '' ? document : join(dir, path);
  return anchor === undefined ? { file } : { file, anchor };
}

/** Code spans of a Markdown text, fenced blocks left out. */
const codeSpansOf = (text: string) => [...text.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)].map((m) => m[1] as string);

/** The rows of the first table whose header starts with `firstColumn`: each row's cells. */
function tableRows(text: string, firstColumn: string): string[][] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`| ${firstColumn} |`));
  expect(start, `a table headed "${firstColumn}"`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim()));
  }
  return rows;
}

const firstCode = (cell: string) => /`([^`]+)`/.exec(cell)?.[1] ?? '';

describe('the README', () => {
  const readme = read('README.md');

  it('is a door: at most 250 lines', () => {
    expect(readme.split('\n').length - 1).toBeLessThanOrEqual(250);
  });

  it('links every page of docs/, and every page links back to it', () => {
    const linked = new Set(linksOf(readme).map((target) => resolveLink('README.md', target).file));
    expect(PAGES.filter((page) => !linked.has(page))).toEqual([]);
    for (const page of PAGES) expect(linksOf(read(page)), page).toContain('../README.md');
  });

  it('draws the rooms of src/ as test/house/rooms.ts lists them, high to low, and describes each once', () => {
    const section = readme.slice(readme.indexOf('## Architecture'));
    const drawing = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const drawn = drawing
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => line.trim().split(/\s+/).map((room) => room.replace(/\/$/, '')));
    expect(drawn).toEqual([...LAYERS].reverse());
    const described = tableRows(section, 'room').flatMap(([cell]) => [...(cell ?? '').matchAll(/`([^`]+)`/g)].map((m) => (m[1] as string).replace(/\/$/, '')));
    expect(described.sort()).toEqual(LAYERS.flat().sort());
  });
});

describe('the pages', () => {
  it('show the examples test/house/readme-example.process.test.ts runs, line for line', () => {
    const normal = (line: string) => line.trim().replace(/\?\./g, '.');
    const test = read('test/house/readme-example.process.test.ts').split('\n').map(normal);
    let examples = 0;
    for (const document of DOCUMENTS) {
      for (const m of read(document).matchAll(/\(this is `test\/house\/readme-example\.process\.test\.ts`\):\n\n```ts\n([\s\S]*?)```/g)) {
        examples += 1;
        const lines = (m[1] as string).split('\n').map(normal).filter((line) => line !== '' && !line.startsWith('import '));
        expect(lines.filter((line) => !test.some((t) => t.includes(line))), document).toEqual([]);
      }
    }
    expect(examples).toBeGreaterThan(0);
  });

  it('link only to files that exist, and to headings that exist in them', () => {
    const broken: string[] = [];
    for (const document of DOCUMENTS) {
      for (const target of linksOf(read(document))) {
        const { file, anchor } = resolveLink(document, target);
        if (!existsSync(join(ROOT, file))) broken.push(`${document}: ${target} (no file)`);
        else if (anchor !== undefined && !headingsOf(read(file)).includes(anchor)) broken.push(`${document}: ${target} (no heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('name only files of the repository that exist', () => {
    const tests = new Set(filesUnder('test').map((path) => path.slice(path.lastIndexOf('/') + 1)));
    const missing: string[] = [];
    for (const document of DOCUMENTS) {
      const text = read(document);
      const paths = [...text.matchAll(/(?<![\w./-])((?:src|test|bench|scripts|diagrams|docs)\/[\w./-]*[\w/])/g)].map((m) => m[1] as string);
      for (const path of paths) if (!existsSync(join(ROOT, path)) && !existsSync(join(ROOT, 'src', path))) missing.push(`${document}: ${path}`);
      for (const span of codeSpansOf(text)) {
        if (/^[\w/]+\.ts$/.test(span) && span.includes('/') && !existsSync(join(ROOT, span)) && !existsSync(join(ROOT, 'src', span))) missing.push(`${document}: ${span}`);
        if (/^\w+\.test\.ts$/.test(span) && !tests.has(span)) missing.push(`${document}: ${span}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    return statSync(join(ROOT, path)).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('docs/cli.md', () => {
  /** The flags a text names; the misspelt one of the bad-command-line example is not one. */
  const flagsOf = (text: string) =>
    new Set([...text.replace(/unknown option --\w+/g, '').matchAll(/(?<![\w-])--[a-z][A-Za-z-]*[A-Za-z]/g)].map((m) => m[0]));
  const page = read('docs/cli.md');

  it('names exactly the flags `--help` names', () => {
    const documented = flagsOf(page);
    const helped = flagsOf(helpText());
    expect([...documented].filter((flag) => !helped.has(flag))).toEqual([]);
    expect([...helped].filter((flag) => !documented.has(flag))).toEqual([]);
  });

  it('names the short flags the parser takes', () => {
    expect(parseCliArgs(['-p', 'x']).print).toBe(true);
    expect(parseCliArgs(['-c']).continue).toBe(true);
    expect(parseCliArgs(['-r', 'abc']).resume).toBe('abc');
    expect(parseCliArgs(['-h']).command).toBe('help');
    expect(parseCliArgs(['-v']).command).toBe('version');
    for (const short of ['-p', '-c', '-r', '-h', '-v']) expect(page).toContain(short);
  });
});

/** The taken flags that take a value. */
const VALUED: Record<string, string> = { agent: 'x', agents: '{}', betas: 'x', effort: 'high', file: 'f:x', 'plugin-dir': 'x', 'plugin-url': 'x', 'remote-control-session-name-prefix': 'x' };

describe('docs/claude-code.md', () => {
  const page = read('docs/claude-code.md');
  const rows = tableRows(page, 'Claude Code');

  it('lists as taken with one line only flags the parser takes and claudeFlags.ts has a line for', () => {
    const taken = rows.find(([, agentloop]) => agentloop?.startsWith('taken with the nearest meaning'))?.[0] ?? '';
    const flags = [...taken.matchAll(/`(--[\w-]+)`/g)].map((m) => m[1] as string);
    expect(flags.length).toBeGreaterThan(3);
    for (const flag of flags) {
      const name = flag.slice(2) === 'bg' ? 'background' : flag.slice(2);
      expect(TAKEN[name], flag).toBeDefined();
      expect(() => parseCliArgs([flag, ...(VALUED[name] !== undefined ? [VALUED[name]] : []), '-p', 'x']), flag).not.toThrow();
    }
  });

  it("lists agentloop's own flags, each one that --help names", () => {
    const own = rows.find(([claude]) => claude === '—')?.[1] ?? '';
    const flags = [...own.matchAll(/`(--[\w-]+)`/g)].map((m) => m[1] as string);
    expect(flags.length).toBeGreaterThan(5);
    for (const flag of flags) expect(helpText()).toContain(flag);
  });
});

describe('docs/durable.md', () => {
  it('names flags the durable commands take', () => {
    const page = read('docs/durable.md');
    for (const [argv, flag] of [
      [['worker', '--host', '0.0.0.0'], '--host'],
      [['worker', '--register', 'http://127.0.0.1:9070', '--advertise', 'http://workers.internal:9080'], '--advertise'],
      [['worker', '--identity-key', 'publickeyv1_x'], '--identity-key'],
      [['submit', '-p', 'x', '--restate', 'http://127.0.0.1:8080', '--wait'], '--wait'],
      [['submit', '-p', 'x', '--session-id', 'abc'], '--session-id'],
      [['result', 'ID', '--restate', 'http://127.0.0.1:8080'], '--restate'],
    ] as const) {
      expect(page).toContain(flag);
      expect(() => parseCommandLine(argv), argv.join(' ')).not.toThrow();
    }
  });
});

describe('docs/loop.md', () => {
  const page = read('docs/loop.md');

  it('lists every exit reason of the code, and only those', () => {
    const union = /export type ExitReason =([^;]+);/.exec(read('src/core/outcome.ts'))?.[1] ?? '';
    const reasons = [...union.matchAll(/'(\w+)'/g)].map((m) => m[1]);
    const documented = tableRows(page, '`exit_reason`').map(([cell]) => firstCode(cell ?? ''));
    expect(documented.sort()).toEqual(reasons.sort());
  });

  it("names the machine's states, guards and rules as the code has them", () => {
    const section = page.slice(page.indexOf('## The machine'), page.indexOf('## Exit reasons'));
    const states = Object.keys(agentMachine.states).concat(Object.keys(agentMachine.states.turn?.states ?? {}));
    const guards = Object.keys(agentMachine.implementations.guards);
    for (const name of [...section.matchAll(/`(\w+)`/g)].map((m) => m[1] as string)) {
      if (/^(calling|executing|appending|checking|waiting)[A-Z]|^(done|failed|aborted)$/.test(name)) expect(states, name).toContain(name);
    }
    const named = [...section.matchAll(/`\[(\w+)\]`/g)].map((m) => m[1] as string).filter((name) => name !== 'guard');
    expect(named.length).toBeGreaterThan(1);
    for (const guard of named) expect(guards, guard).toContain(guard);
    const ruleNames = /\(src\/machine\/rules\.ts:([^)]*)\)/.exec(section)?.[1] ?? '';
    const ruleList = [...ruleNames.matchAll(/`(\w+)`/g)].map((m) => m[1] as string);
    expect(ruleList.length).toBeGreaterThan(2);
    for (const rule of ruleList) expect(typeof (rules as Record<string, unknown>)[rule], rule).toBe('function');
  });
});

describe('docs/library.md', () => {
  const page = read('docs/library.md');

  it("lists every event a run emits, and only those (src/core/events.ts)", () => {
    const emitted = new Set([...read('src/core/events.ts').matchAll(/type: '(\w+)'/g)].map((m) => m[1] as string));
    const documented = tableRows(page, 'event').flatMap(([cell]) => [...(cell ?? '').matchAll(/`(\w+)`(?: `\{|,|$| )/g)].map((m) => m[1] as string));
    expect(new Set(documented)).toEqual(emitted);
  });

  it("imports from 'agentloop' only what the package exports", () => {
    for (const document of DOCUMENTS) {
      for (const m of read(document).matchAll(/import \{([^}]+)\} from 'agentloop'/g)) {
        for (const name of (m[1] as string).split(',').map((n) => n.trim()).filter((n) => n && !n.startsWith('type '))) {
          expect(library, `${document}: ${name}`).toHaveProperty(name);
        }
      }
    }
  });
});

describe('docs/mistakes.md', () => {
  it('lists the mistakes the CLI runs, and only those', () => {
    const documented = tableRows(read('docs/mistakes.md'), '`--mistake`').map(([cell]) => firstCode(cell ?? ''));
    expect(documented.sort()).toEqual([...MISTAKE_NAMES].sort());
  });
});
