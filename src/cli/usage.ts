/**
 * What `--help` prints: a module of its own, so that `--help` needs neither the parser nor the loop, and `--version`
 * not even this. A bad command line prints one line and a pointer here.
 */
export const USAGE = `Usage: agentloop [options] [PROMPT]       start a REPL (asks PROMPT first, if given)
       agentloop -p [options] "PROMPT"     run once and print the result (piped stdin: the prompt, or context after it)
       agentloop --demo [options]          offline demo with a scripted model and the real bash tool
       agentloop --demo --mistake NAME     the demo with a beginner's mistake in the loop (list: name them)
       agentloop --demo --step             the demo, stopped before each model request and each tool: Next in the page
       agentloop sessions                  list saved sessions (newest first)
       agentloop view [ID] [--port N]      step through a session in the browser (default: the newest here)
       agentloop view --compare A B        two sessions side by side, the first diverging request marked
       agentloop worker [--port 9080] [--register ADMIN_URL]   serve durable runs for Restate (docs/durable.md)
       agentloop balancer --backend URL... [--register ADMIN_URL]   one address for several workers
       agentloop submit -p "PROMPT" [--restate URL] [--wait]   start a durable run; prints its id (--wait: the json result)
       agentloop result|messages ID [--restate URL]           a durable run's result (exit 3: still running) or messages
       agentloop view --restate URL ID                        step through a durable run

Options:
  -p, --print                     run once and exit (json and stream-json imply it)
      --output-format FORMAT      text (default), json or stream-json
      --input-format FORMAT       text (default) or stream-json: user messages as JSON lines on stdin
      --verbose                   text: show the tool calls on stderr; accepted with stream-json
      --include-partial-messages  stream-json: also the model's raw stream events (stream_event lines)
      --include-loop-events       stream-json: also agentloop's loop events (loop_event lines: docs/agent-sdk.md)
      --permission-prompt-tool stdio  stream-json input: ask the host (an Agent SDK program) about what the
                                  permission mode would not run (can_use_tool control requests)
      --model ID                  model id or alias sonnet, opus, haiku (overrides MODEL_ID)
      --fallback-model ID         model to switch to when the model is overloaded
      --system-prompt TEXT        replace the system prompt
      --append-system-prompt TEXT add TEXT to the end of the system prompt
      --allowedTools RULES        allow only these bash commands, e.g. "Bash(git log:*) Bash(npm test)"
      --disallowedTools RULES     never run these, e.g. "Bash(rm:*)" (beats --allowedTools; several
                                  rules per value by commas or spaces; also --allowed-tools, --disallowed-tools)
      --permission-mode MODE      what runs without a rule (nothing is asked: the rest is denied): default
                                  (read-only commands; also manual, dontAsk), acceptEdits (and mkdir, touch,
                                  mv, cp inside the working directory), plan (read-only only), bypassPermissions
                                  (everything; the mode without --allowedTools)
      --dangerously-skip-permissions  --permission-mode bypassPermissions
      --max-turns N               stop after N model calls (default 50)
      --max-budget-usd AMOUNT     stop once the run has cost AMOUNT dollars
      --max-tokens N              max_tokens of each request (default 8000)
      --max-retries N             retries of a failed model call (default 4)
      --cwd DIR                   working directory of the tools (default: the current one)
      --sandbox                   run bash commands under bubblewrap: read-only system, no network,
                                  credentials, agent state, .env files and sockets hidden
      --allow-env NAME            pass this credential variable (*_API_KEY, *_TOKEN, ...) to commands
      --allow-write NAME          with --sandbox: let commands write NAME, one of the files that run later
                                  (.bashrc, .profile, .git/hooks, .git for all of .git, .vscode, ...), kept
                                  read-only by default even in the working directory
      --mcp-config FILE|JSON      MCP servers to give the model the tools of (Claude Code's format; repeatable)
      --strict-mcp-config         use only the servers of --mcp-config (agentloop reads no others)
      --demo                      play the two-turn example with a scripted model, no API key needed
      --mistake NAME              with --demo: swap one action of the loop for a beginner's mistake and show
                                  what goes wrong (list: the mistakes)
  -r, --resume ID                 go on with session ID (a unique prefix is enough); with a PROMPT, ask it next
  -c, --continue                  go on with the newest session of this directory
      --fork-session              with --resume/--continue: go on in a new session, the old one stays as it was
      --wait-for-session          with --resume/--continue: if another run is writing the session, wait until it
                                  ends (without it, that is refused at once, exit 2)
      --session-id UUID           the id of the new session
      --view                      show the run live in the local step-through viewer (prints its URL)
      --step                      stop the run before each model request and each tool until Next in the viewer (implies --view)
      --inspect                   show the machine live in the Stately inspector (prints its URL; needs internet)
      --port N                    port of the viewer / inspector page (default: any free port)
  -h, --help                      show this help
  -v, --version                   print the version

Configuration (environment or .env in the working directory):
  ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL, MODEL_ID (or ANTHROPIC_MODEL), NO_COLOR
  AGENTLOOP_HOME: where sessions are saved (default ~/.agentloop; transcripts in sessions/ID.jsonl)

Exit codes: 0 success, 1 the run failed, 2 bad usage or configuration, 130/143 interrupted.`;
