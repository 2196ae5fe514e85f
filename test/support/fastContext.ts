/**
 * Run by test/machine/fastContext.process.test.ts as `node --allow-natives-syntax --import tsx`: drives the
 * real machine through tool turns, max_tokens continuations, a pause_turn and a retry, and asks V8
 * of every context it went through whether it is in fast mode. Prints one JSON line.
 */
import { ModelError } from '../../src/core/model.js';
import { reply, type ScriptedReply } from '../../src/scripted/model.js';
import { drive, echoTool } from './drive.js';

// `%HasFastProperties` is V8's own test of an object's mode; only with --allow-natives-syntax.
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;

const cut: ScriptedReply = { content: [{ type: 'text', text: 'cut' }], stop_reason: 'max_tokens' };
const paused: ScriptedReply = { content: [{ type: 'text', text: 'searching' }], stop_reason: 'pause_turn' };
const overloaded = { error: new ModelError('overloaded', 'Overloaded', { status: 529 }) };
const use = (id: string) => ({ id, name: 'echo', input: { text: id } });

const slow: string[] = [];
let checked = 0;
await drive({
  steps: [reply.toolUse([use('a')]), cut, cut, paused, overloaded, reply.toolUse([use('b'), use('c')]), reply.text('done')],
  tools: [echoTool()],
  onStart: (actor) =>
    actor.subscribe((snapshot) => {
      checked++;
      const { context } = snapshot;
      if (!hasFastProperties(context)) slow.push(`context in ${JSON.stringify(snapshot.value)}`);
      for (const part of ['turn', 'recovery', 'usage'] as const) {
        if (!hasFastProperties(context[part])) slow.push(`context.${part} in ${JSON.stringify(snapshot.value)}`);
      }
    }),
});

// The probe itself: an object literal as wide as the context was (22 fields, names of its own)
// copied as XState copies a context: V8 must answer that it is slow.
const wideLiteral = new Function(`return {${Array.from({ length: 22 }, (_, i) => `probe${i}: ${i % 3 ? 'null' : '[]'}`).join(', ')}}`);
let wide = wideLiteral() as Record<string, unknown>;
for (let i = 0; i < 3; i++) wide = Object.assign({}, wide, { probe1: i });
process.stdout.write(`${JSON.stringify({ checked, slow, wideIsFast: hasFastProperties(wide) })}\n`);
