/**
 * The simulator's starting scripts: the demo's two turns, and the cases the chapter's loop must meet (two tools in
 * one reply, a tool that fails, a stop_reason that lies, a reply cut by max_tokens).
 */
import { BASH_TOOL_NAME } from '../../tools/bash/names.js';
import type { SimScript } from './script.js';

const PROMPT = 'List the files in the working directory.';
const LISTING = '.gitignore\nREADME.md\npackage.json\nsrc';
const ask = (id: string, command: string) => ({ type: 'tool_use' as const, id, name: BASH_TOOL_NAME, input: { command } });
const text = (t: string) => ({ type: 'text' as const, text: t });
const answer = (t: string) => ({ content: [text(t)], stop_reason: 'end_turn' as const });

const demo: SimScript = {
  prompt: PROMPT,
  replies: [
    { content: [text("I'll list the files in the working directory."), ask('toolu_demo_01', 'ls -A')], stop_reason: 'tool_use' },
    answer('The working directory has 4 entries:\n- .gitignore\n- README.md\n- package.json\n- src'),
  ],
  bash: { 'ls -A': LISTING },
};

export const PRESETS: Record<string, SimScript> = {
  demo,
  'two-tools': {
    prompt: 'How many files are here, and which is the largest?',
    replies: [
      { content: [text('Two commands at once.'), ask('toolu_sim_01', 'ls -A | wc -l'), ask('toolu_sim_02', 'ls -S | head -1')], stop_reason: 'tool_use' },
      answer('There are 4 entries; the largest is package.json.'),
    ],
    bash: { 'ls -A | wc -l': '4', 'ls -S | head -1': 'package.json' },
  },
  'tool-error': {
    prompt: 'Show me notes.txt.',
    replies: [
      { content: [ask('toolu_sim_01', 'cat notes.txt')], stop_reason: 'tool_use' },
      answer('There is no notes.txt in the working directory.'),
    ],
    bash: { 'cat notes.txt': { output: 'cat: notes.txt: No such file or directory\nExit code 1', is_error: true } },
  },
  'stop-reason-lies': { ...demo, replies: [{ ...(demo.replies[0] as SimScript['replies'][0]), stop_reason: 'end_turn' }, ...demo.replies.slice(1)] },
  'max-tokens': {
    prompt: PROMPT,
    replies: [
      { content: [text("I'll list the files")], stop_reason: 'max_tokens', cut_block: ask('toolu_sim_cut', 'ls -A') },
      { content: [text(' in the working directory.'), ask('toolu_sim_01', 'ls -A')], stop_reason: 'tool_use' },
      demo.replies[1] as SimScript['replies'][0],
    ],
    bash: { 'ls -A': LISTING },
  },
};

export const PRESET_NAMES = Object.keys(PRESETS);
