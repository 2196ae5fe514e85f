/**
 * Run by test/transcript/lostTranscript.process.test.ts as `node --import tsx lostAfterLastWrite.ts HOME` (as root, and as nobody
 * through setpriv): one run in this process, recorded in a session under HOME; its transcript removed after the run's
 * last write, then the session closed. Prints what the test checks, as one line of JSON.
 */
import { rmSync, statSync } from 'node:fs';
import { runAgent } from '../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { startSession } from '../../src/transcript/recorder.js';
import { restoreConversation } from '../../src/transcript/resume.js';
import { newestSessionFor, readTranscript } from '../../src/transcript/store.js';

const home = process.argv[2] as string;
const notices: string[] = [];
const recorder = startSession(home, { cwd: home, model: 'scripted', prompt: 'q-only' }, { onMoved: (n) => notices.push(n) });
const model = scriptedModel([reply.text('the answer')]);
await runAgent('q-only', { model: 'scripted', modelCall: model.call, tools: [], session: recorder, cwd: home });
rmSync(recorder.path);
recorder.close();
const fork = readTranscript(recorder.path);
process.stdout.write(
  `${JSON.stringify({
    notices,
    forkedFrom: fork.header?.forkedFrom,
    roles: restoreConversation(fork.records).messages.map((m) => m.role),
    last: fork.records.at(-1),
    owner: statSync(recorder.path).uid,
    id: recorder.id,
    newest: newestSessionFor(home, home)?.id,
  })}\n`,
);
