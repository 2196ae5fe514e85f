export { DEMO_MODEL_ID, DEMO_PROMPT, demoModel } from '../scripted/demo.js';

export const DEMO_BANNER =
  '[demo] The model is scripted (no API key, no network): it plays the two-turn example. The machine and the bash tool are real.';
