import { describe, expect, it } from 'vitest';
import { BUILT_IN_TOOLS, chapterTools, chosenBuiltIns, defaultTools, unavailableToolNote, type BuiltInTool } from '../../../src/run/defaultTools.js';
import { missingTools, offeredToolNames } from '../../../src/cli/setup/toolSet.js';
import { defineTool } from '../../../src/tools/define.js';
import { s } from '../../../src/tools/schema.js';
import { publicToolName } from '../../../src/core/tool.js';

/** The list of defaults as Claude Code's built-in tools will fill it (issue 44): a stand-in made for each. */
const stand = (publicName: string, offered: BuiltInTool['offered']): BuiltInTool => ({
  publicName,
  name: publicName,
  offered,
  create: () => defineTool({ name: publicName, description: publicName, input: s.object({}), run: async () => ({ content: '', isError: false }) }),
});
const FULL: BuiltInTool[] = [BUILT_IN_TOOLS[0] as BuiltInTool, stand('Read', 'default'), stand('Write', 'default'), stand('Edit', 'default'), stand('Glob', 'search'), stand('Grep', 'search')];

describe('which built-in tools a CLI run offers (Claude Code 2.1.197)', () => {
  it.each([
    [{}, undefined],
    [{ allowedTools: ['Read', 'Bash(git log:*)'] }, undefined],
    [{ allowedTools: ['Grep'] }, ['default', 'Glob', 'Grep']],
    [{ allowedTools: ['Glob(src/**)'] }, ['default', 'Glob', 'Grep']],
    [{ tools: ['Bash'] }, ['Bash']],
    [{ tools: [] }, []],
    [{ tools: ['Default'] }, ['default', 'Default']],
    [{ tools: ['Bash'], allowedTools: ['Grep'] }, ['Bash']],
    [{ demo: true, tools: ['Read'] }, ['Bash']],
  ] as [{ tools?: string[]; allowedTools?: string[]; demo?: boolean }, string[] | undefined][])('%j: %j', (options, names) => {
    expect(offeredToolNames({ demo: false, ...options }, FULL)).toEqual(names);
  });

  it('the default set is Bash, Read, Write and Edit; Glob and Grep come when named', () => {
    const named = (names: readonly string[] | undefined) => chosenBuiltIns(names, FULL).map((e) => e.publicName);
    expect(named(offeredToolNames({ demo: false }, FULL))).toEqual(['Bash', 'Read', 'Write', 'Edit']);
    expect(named(offeredToolNames({ demo: false, allowedTools: ['Grep'] }, FULL))).toEqual(['Bash', 'Read', 'Write', 'Edit', 'Glob', 'Grep']);
  });

  it('names what --tools asks for that agentloop has not', () => {
    expect(missingTools(['Bash', 'bash', 'default', 'WebFetch', 'read'], FULL)).toEqual(['WebFetch', 'read']);
    expect(missingTools(undefined, FULL)).toEqual([]);
  });
});

describe('defaultTools', () => {
  it("gives the bash tool by default, as Claude Code's Bash; the chapter's tools are the bash tool alone", () => {
    expect(defaultTools({ tools: ['Bash'] }).map(publicToolName)).toEqual(['Bash']);
    expect(defaultTools({ tools: [] })).toEqual([]);
    expect(chapterTools().map((t) => [t.name, publicToolName(t)])).toEqual([['bash', 'Bash']]);
  });
});

describe("what a call of a tool not offered is told (Claude Code's words)", () => {
  const withBash = unavailableToolNote(chapterTools());
  const without = unavailableToolNote([]);
  it.each([
    [withBash, 'Glob', '. Glob is not available in this session — find files with `find` via the Bash tool instead.'],
    [withBash, 'Grep', '. Grep is not available in this session — search file contents with `grep` via the Bash tool instead.'],
    [without, 'Glob', '. Glob is not available in this context. Use one of the available tools instead.'],
    [without, 'Bash', '. Bash exists but is not enabled in this context. Use one of the available tools instead.'],
    [withBash, 'Foo', ''],
  ])('%#: %s', (note, name, text) => {
    expect(note(name)).toBe(text);
  });
});
