import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toMermaid } from '../../src/diagram/mermaid.js';
import { listTransitions } from '../../src/diagram/transitions.js';
import { agentMachine } from '../../src/machine/agentMachine.js';

describe('diagrams/agent-loop.mmd', () => {
  it('is what `npm run diagrams` generates from the machine definition (run it when this fails)', () => {
    const committed = readFileSync(new URL('../../diagrams/agent-loop.mmd', import.meta.url), 'utf8');
    expect(committed).toBe(toMermaid(agentMachine));
  });

  it('draws every transition of the machine', () => {
    const diagram = toMermaid(agentMachine);
    for (const t of listTransitions(agentMachine)) {
      const from = t.source.split('.').pop();
      const to = t.targets[0]?.split('.').pop();
      if (t.source === agentMachine.id) expect(diagram).toMatch(new RegExp(`note right of ${to}\\n(    .*\\n)*    from any state on ${t.event}`));
      else if (to) expect(diagram).toContain(`${from} --> ${to} : `);
      else expect(diagram).toMatch(new RegExp(`note right of ${from}\\n(    .*\\n)*    on ${t.event} `));
    }
    expect(diagram).toContain('state checkingReply <<choice>>');
  });
});

describe('README.md', () => {
  it('embeds the current diagram', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(`\`\`\`mermaid\n${toMermaid(agentMachine)}\`\`\``);
  });
});
