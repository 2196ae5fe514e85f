/**
 * The reasons the lesson gives at the loop's own steps (view/lesson/reasons.ts), on the demo's run as the simulator plays it
 * (the real machine, its records): ⑥ appending the results and ⑧ the answer each say why, in both languages. The
 * reason reads the step's lesson marks, so a timeline that gave it the step before its lesson was set said none there
 * (the viewer's last step had no "why": lessonPhone.browser.test).
 */
import { describe, expect, it } from 'vitest';
import { machineGraph } from '../../../src/diagram/graph.js';
import { agentMachine } from '../../../src/machine/agentMachine.js';
import { PRESETS, PRESET_NAMES } from '../../../src/view/sim/presets.js';
import { simulate } from '../../../src/view/sim/simulate.js';
import { render } from '../../../src/view/texts/render.js';
import { buildTimeline } from '../../../src/view/timeline/build.js';

describe("the lesson's reasons at the loop's steps", () => {
  it('says why at appendingResults (⑥) and at done (⑧), in English and Chinese', async () => {
    const simulation = await simulate(PRESETS[PRESET_NAMES[0] as string]!);
    const timeline = buildTimeline(simulation.records, machineGraph(agentMachine));
    const why = (state: string, lang: 'en' | 'zh') => {
      const step = timeline.steps.find((s) => s.state === state);
      return step?.why ? render(lang, step.why) : null;
    };
    expect(why('appendingResults', 'en')).toMatch(/^Why: /);
    expect(why('done', 'en')).toBe('Why: this loop plus one bash tool is the whole agent. Later chapters add to the loop; the loop stays.');
    expect(why('done', 'zh')).toMatch(/^为什么：一个循环/);
    expect(why('appendingResults', 'zh')).toMatch(/^为什么：/);
  });
});
