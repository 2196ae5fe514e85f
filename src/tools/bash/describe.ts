/** What the bash tool tells the model of itself: where commands run, what carries over, timeouts, output, the sandbox. */
export function describe(cwd: string | undefined, settings: { timeoutMs: number; maxTimeoutMs: number; maxOutputChars: number }, sandboxed: boolean): string {
  const where = cwd === undefined ? 'the session working directory' : cwd;
  const lines = [
    `Run a bash command (bash -c) in ${where} and get its combined stdout and stderr.`,
    `Each call starts a fresh shell in that directory: cd and variables do not carry over to the next call.`,
    `Commands cannot be interactive: stdin is empty, there is no terminal, editors fail (use git commit -m) and pagers are cat.`,
    `Background processes are killed when the command ends. Timeout: ${settings.timeoutMs} ms by default; pass "timeout" (ms, at most ${settings.maxTimeoutMs}) for longer commands.`,
    `Output is cut to ${settings.maxOutputChars} characters (head and tail kept; the full output is saved to a file whose path is given).`,
  ];
  if (sandboxed) {
    lines.push(
      'Sandboxed: only the working directory is writable; /tmp, /var/tmp and /run are private and empty; there is no network; ' +
        "the user's credentials (~/.ssh, ~/.aws, ~/.config, ~/.netrc, ...), the agent's own files and .env files are hidden.",
    );
  }
  return lines.join('\n');
}
