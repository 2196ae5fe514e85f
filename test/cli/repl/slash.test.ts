import { describe, expect, it } from 'vitest';
import { parseSlash, stateText } from '../../../src/cli/repl/slash.js';

describe('slash commands: which message is one', () => {
  it.each([
    ['/help', { name: 'help' }],
    ['  /COST  ', { name: 'cost' }],
    ['/state now', { name: 'state' }],
    ['/nope', { name: 'unknown', text: '/nope' }],
  ])('%j is a command', (text, command) => {
    expect(parseSlash(text)).toEqual(command);
  });

  it.each([['/etc/hosts: what is it?'], ['/help\nand more'], ['what does /help do?'], ['/'], ['/ help']])('%j is a question', (text) => {
    expect(parseSlash(text)).toBeUndefined();
  });
});

describe('/state before any run', () => {
  it('says so and counts the history it would send', () => {
    const text = stateText(undefined, [{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'text', text: 'a' }] }]);
    expect(text).toContain('no run yet');
    expect(text).toContain('2 messages: user, assistant');
  });
});
