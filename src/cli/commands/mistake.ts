/**
 * `agentloop --demo --mistake NAME` (and `--mistake list`): the offline demo with one of the
 * beginner's mistakes in the loop (src/mistakes/), and what goes wrong, as text on stdout; the
 * mistaken run's tool calls on stderr as it goes. Loaded only for this command.
 */
import { isMistakeName } from '../../mistakes/names.js';
import { formatMistakeList, formatMistakeReport, symptomOf } from '../../mistakes/report.js';
import { runMistake } from '../../mistakes/run.js';
import { agentloopHome } from '../../transcript/store.js';
import { DEMO_BANNER } from './demo.js';
import { selfCommand } from '../commandLine/self.js';
import { formatToolResult, formatToolStart, palette } from '../printers/output.js';
import { shown } from '../printers/terminal.js';

export interface MistakeIo {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

/** Exit 0 when the mistake showed its symptom (what the demo is for), 1 when it did not, 2 for an unknown name. */
export async function mistakeCommand(name: string, io: MistakeIo): Promise<number> {
  if (name === 'list') {
    io.stdout.write(formatMistakeList(selfCommand()));
    return 0;
  }
  if (!isMistakeName(name)) {
    io.stderr.write(`agentloop: no mistake "${shown(name)}": see ${selfCommand()} --demo --mistake list\n`);
    return 2;
  }
  const colors = palette(io.stderr, io.env);
  io.stderr.write(`${colors.bold(DEMO_BANNER)}\n`);
  io.stderr.write(colors.dim(`[mistake ${name}] First the correct loop, then the mistaken one, on the same scripted model; the mistaken run:\n`));
  const run = await runMistake(name, {
    cwd: io.cwd,
    home: agentloopHome(io.env),
    onEvent: (event, tools) => {
      if (event.type === 'tool_start') io.stderr.write(`${colors.cyan(formatToolStart(event, tools(event.block.name)))}\n`);
      if (event.type === 'tool_result') io.stderr.write(`${colors.dim(formatToolResult(event))}\n`);
    },
  });
  io.stdout.write(shown(formatMistakeReport(run, selfCommand())));
  return symptomOf(run) === 'none' ? 1 : 0;
}
