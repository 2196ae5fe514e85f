// Many runs at once in one process (bench/many.ts): `node --expose-gc many.mjs SIDE N` runs N runs of one side's loop
// against ANTHROPIC_BASE_URL (a server that answers each request after a 1 s delay: first a call of the read-only
// tool `lookup`, then the answer), all started at once, and prints one line of JSON: memory, wall, event-loop delay,
// and what the process held at the peak (file descriptors, handles by kind).
import { readdirSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import { fileURLToPath } from 'node:url';

const [side, countText] = process.argv.slice(2);
const N = Number(countText);
const MODEL = process.env.BENCH_MODEL ?? 'claude-sonnet-4-5';
const SYSTEM = 'You are a coding agent. Use the lookup tool; answer briefly when the task is done.';
const DESCRIPTION = 'Looks a key up in the table and answers with its value. Read-only.';
const SCHEMA = { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] };
const lookup = (key) => `value of ${key}: 42`;
const prompt = (i) => `MANY-TASK ${i}: look up alpha.`;
const DONE = 'MANY-DONE';

const sides = {
  async agentloop(withSessions) {
    const { runAgent } = await import(fileURLToPath(new URL('../../../dist/index.js', import.meta.url)));
    const tool = {
      name: 'lookup',
      description: DESCRIPTION,
      inputSchema: SCHEMA,
      isConcurrencySafe: () => true,
      isReadOnly: () => true,
      run: async (input) => ({ content: lookup(input.key), isError: false }),
    };
    const home = withSessions ? mkdtempSync(join(tmpdir(), 'agentloop-many-')) : undefined;
    if (home) process.once('exit', () => rmSync(home, { recursive: true, force: true }));
    return async (i) => {
      const result = await runAgent(prompt(i), {
        model: MODEL,
        client: { apiKey: process.env.ANTHROPIC_API_KEY, baseURL: process.env.ANTHROPIC_BASE_URL }, // as the README writes it
        system: SYSTEM,
        tools: [tool],
        cwd: '/',
        ...(home ? { session: { home } } : {}),
      });
      const text = result.context.messages.at(-1)?.content;
      if (result.state !== 'done' || !JSON.stringify(text).includes(DONE)) throw new Error(`agentloop: ${result.state} ${result.context.error?.message ?? ''}`);
    };
  },
  async plain() {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    const client = new Anthropic();
    const tools = [{ name: 'lookup', description: DESCRIPTION, input_schema: SCHEMA }];
    return async (i) => {
      const messages = [{ role: 'user', content: prompt(i) }];
      for (let turn = 0; turn < 10; turn++) {
        const reply = await client.messages.create({ model: MODEL, max_tokens: 8000, system: SYSTEM, tools, messages });
        messages.push({ role: 'assistant', content: reply.content });
        const uses = reply.content.filter((b) => b.type === 'tool_use');
        if (uses.length === 0) {
          if (!JSON.stringify(reply.content).includes(DONE)) throw new Error('plain: no answer');
          return;
        }
        messages.push({ role: 'user', content: uses.map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: lookup(u.input.key) })) });
      }
    };
  },
  async aisdk() {
    const { createAnthropic } = await import('@ai-sdk/anthropic');
    const { jsonSchema, stepCountIs, streamText, tool } = await import('ai');
    const anthropic = createAnthropic({ baseURL: `${process.env.ANTHROPIC_BASE_URL}/v1` });
    const tools = { lookup: tool({ description: DESCRIPTION, inputSchema: jsonSchema(SCHEMA), execute: async ({ key }) => lookup(key) }) };
    return async (i) => {
      let failed;
      const result = streamText({ model: anthropic(MODEL), system: SYSTEM, prompt: prompt(i), tools, stopWhen: stepCountIs(10), maxOutputTokens: 8000, onError: ({ error }) => (failed = error) });
      await result.consumeStream();
      const text = await result.text;
      if (failed || !text.includes(DONE)) throw new Error(`aisdk: ${failed ?? text}`);
    };
  },
  async pi() {
    const { Agent } = await import('@mariozechner/pi-agent-core');
    const { getModel } = await import('@mariozechner/pi-ai');
    const { Type } = await import('typebox');
    const model = { ...getModel('anthropic', MODEL), baseUrl: process.env.ANTHROPIC_BASE_URL };
    const tool = {
      name: 'lookup',
      label: 'lookup',
      description: DESCRIPTION,
      parameters: Type.Object({ key: Type.String() }),
      execute: async (_id, { key }) => ({ content: [{ type: 'text', text: lookup(key) }], details: {} }),
    };
    return async (i) => {
      const agent = new Agent({ initialState: { systemPrompt: SYSTEM, model, tools: [tool] }, getApiKey: () => process.env.ANTHROPIC_API_KEY });
      await agent.prompt(prompt(i));
      const last = agent.state.messages.at(-1);
      if (last?.role !== 'assistant' || !JSON.stringify(last.content).includes(DONE)) throw new Error(`pi: ${last?.errorMessage ?? last?.stopReason}`);
    };
  },
};

const make = side === 'agentloop-sessions' ? () => sides.agentloop(true) : side === 'agentloop' ? () => sides.agentloop(false) : sides[side];
if (!make) throw new Error(`unknown side ${side}`);
const runOne = await make();

// Warm-up: a few runs at once, so that the code the runs share is loaded and compiled before the baseline.
await Promise.all(Array.from({ length: 4 }, (_, i) => runOne(-1 - i)));
globalThis.gc?.();
const base = process.memoryUsage();
// Reading the resident set (/proc/self/stat) takes a descriptor: at the limit it fails, and the heap alone is read.
const memory = () => {
  try {
    return process.memoryUsage();
  } catch {
    return { rss: -1, heapUsed: v8.getHeapStatistics().used_heap_size };
  }
};
// Reading the folder takes a descriptor: at the limit it fails, and the sample is skipped (-1), not the process.
const fds = () => {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return -1;
  }
};
const baseFds = fds();

const delay = monitorEventLoopDelay({ resolution: 1 });
let peakRss = base.rss;
let peakHeap = base.heapUsed;
let peakFds = baseFds;
let held;
let measureCpuMs = 0;
const sample = setInterval(() => {
  const m = memory();
  peakRss = Math.max(peakRss, m.rss);
  peakHeap = Math.max(peakHeap, m.heapUsed);
  peakFds = Math.max(peakFds, fds());
}, 50);

const t0 = performance.now();
const cpu0 = process.cpuUsage();
let finished = 0;
let failures = 0;
let firstError;
delay.enable();
const all = Promise.all(
  Array.from({ length: N }, (_, i) =>
    runOne(i).then(
      () => void finished++,
      (error) => {
        failures++;
        firstError ??= String(error?.message ?? error).slice(0, 300);
        process.send?.({ type: 'failed' }); // a run that ended before its first request: the benchmark waits for it no more
      },
    ),
  ),
);
// What one run holds: the server holds every run's first reply until the benchmark has seen all N first requests
// (bench/manyTask.ts) and says so; then a full collection, the heap, and what the process holds, by kind. The gate
// opens once this is sent.
process.send?.({ type: 'started' });
const measured = new Promise((resolve) => {
  process.once('message', () => {
    const allOut = performance.now();
    const cpuAt = process.cpuUsage();
    delay.disable(); // the collection below is the benchmark's, not the loop's
    globalThis.gc?.();
    const retained = memory();
    const resources = {};
    for (const kind of process.getActiveResourcesInfo()) resources[kind] = (resources[kind] ?? 0) + 1;
    held = { heapMb: retained.heapUsed / 2 ** 20, rssMb: retained.rss / 2 ** 20, fds: fds(), resources, atMs: allOut - t0 };
    delay.enable();
    process.send?.({ type: 'held' });
    const spent = process.cpuUsage(cpuAt);
    measureCpuMs = (spent.user + spent.system) / 1000;
    resolve(performance.now() - allOut);
  });
});
await all;
const wallMs = performance.now() - t0;
const pausedMs = await measured;
const cpu = process.cpuUsage(cpu0);
delay.disable();
clearInterval(sample);
process.stdout.write(
  `${JSON.stringify({
    side,
    n: N,
    finished,
    failures,
    firstError,
    wallMs,
    // The wall less the pause for the measurement (the gate opened once it was done).
    runsWallMs: wallMs - pausedMs,
    // CPU time of the process over the runs (user + system, all threads), the measurement's own left out.
    cpuMs: (cpu.user + cpu.system) / 1000 - measureCpuMs,
    baseRssMb: base.rss / 2 ** 20,
    baseHeapMb: base.heapUsed / 2 ** 20,
    peakRssMb: peakRss / 2 ** 20,
    peakHeapMb: peakHeap / 2 ** 20,
    baseFds,
    peakFds,
    held,
    delayMs: { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6, mean: delay.mean / 1e6 },
  })}\n`,
);
process.exit(0);
