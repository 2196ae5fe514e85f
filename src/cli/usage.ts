/**
 * What `--help` and a bad command line print: a module of its own, so that `--help` needs neither the parser nor the
 * loop, and `--version` not even this.
 */
export const USAGE = `Usage: agentloop [options]            start a REPL (the conversation is kept across questions)
       agentloop -p "PROMPT" [options]  run once and print the result
       agentloop --demo [options]       offline demo with a scripted model and the real bash tool
       agentloop sessions               list saved sessions (newest first)
       agentloop view [ID] [--port N]   step through a session in the browser (default: the newest here)

Options:
  -p, --print PROMPT          run PROMPT once and exit
      --output-format FORMAT  text (default), json or stream-json
      --model ID              model id (overrides MODEL_ID)
      --max-turns N           stop after N model calls (default 50)
      --max-tokens N          max_tokens of each request (default 8000)
      --max-retries N         retries of a failed model call (default 4)
      --cwd DIR               working directory of the tools (default: the current one)
      --sandbox               run bash commands under bubblewrap: read-only system, no network
      --allow-env NAME        pass this credential variable (*_API_KEY, *_TOKEN, ...) to commands
      --demo                  play the two-turn example with a scripted model, no API key needed
      --resume ID             go on with session ID (a unique prefix is enough); with -p, ask PROMPT next
  -c, --continue              go on with the newest session of this directory
      --view                  show the run live in the local step-through viewer (prints its URL)
      --inspect               show the machine live in the Stately inspector (prints its URL; needs internet)
      --port N                port of the viewer / inspector page (default: any free port)
  -h, --help                  show this help
  -v, --version               print the version

Configuration (environment or .env in the working directory):
  ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL, MODEL_ID, NO_COLOR
  AGENTLOOP_HOME: where sessions are saved (default ~/.agentloop; transcripts in sessions/ID.jsonl)

Exit codes: 0 success, 1 the run failed, 2 bad usage or configuration, 130/143 interrupted.`;
