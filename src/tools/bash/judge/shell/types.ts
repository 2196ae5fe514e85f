/** What parse.ts makes of a command line: its simple commands, with their words resolved where static. */

export interface Word {
  /** As written. */
  text: string;
  /**
   * After quote removal and the expansions known at parse time (variables assigned earlier in the
   * same command line, `$(echo ...)`, `$HOME` as `~`); null when it depends on anything else.
   */
  value: string | null;
  /** Holds an unquoted `*`, `?` or `[`. */
  glob: boolean;
  /** Holds an expansion or substitution (even one whose value is known). */
  dynamic: boolean;
  /** For `<(...)`: what reading the file gives. */
  reads?: Flow;
}

export interface Redirect {
  /** `>`, `>>`, `&>`, `&>>`, `>&`, `>|`, `<`, `<>`, `<&`, `<<`, `<<-`, `<<<`. */
  op: string;
  /** The descriptor written before the operator (`2` in `2>`), or null. */
  fd: string | null;
  /** The file (or descriptor) of a file redirection; null for here-documents and here-strings. */
  target: Word | null;
}

/** What flows into a command's standard input, or out of a command. */
export type Flow =
  | { kind: 'text'; text: string }
  /** The output of a decoder (`base64 -d`, `xxd -r`, `gunzip`, ...) whose input is not known. */
  | { kind: 'decoded'; by: string }
  /** The output of a command whose output is not known statically. */
  | { kind: 'command'; command: SimpleCommand }
  | { kind: 'unknown' };

export interface SimpleCommand {
  /** The command as written, without the redirections around it. */
  text: string;
  /** `NAME=value` written before the command. */
  assignments: { name: string; value: Word }[];
  /** The command word and its arguments; an unquoted expansion may have been split into several. */
  words: Word[];
  redirects: Redirect[];
  /** Its standard input when piped or redirected from a here-document or here-string. */
  stdin: Flow | null;
  /**
   * The directory it runs in when a `cd` before it in the command line made it known (an
   * absolute path or one under `~`); null: the tool's working directory or one unknown.
   */
  cwd: string | null;
  /** Runs inside `$(...)`, backquotes or `<(...)`. */
  substituted: boolean;
}

export interface ShellFunction {
  name: string;
  /** How many commands of its body call the function itself. */
  selfCalls: number;
  /** Its body as written. */
  body: string;
}

export interface Script {
  /** The command line as given. */
  source: string;
  /** Every simple command, in the order they would run, including those in substitutions and function bodies. */
  commands: SimpleCommand[];
  /** Every file redirection, including those of compound commands and bare ones (`> /dev/sda`). */
  redirects: Redirect[];
  functions: ShellFunction[];
  /**
   * Only simple commands of plain words joined by `;`, `&&`, `||`, `|`, `|&` and newlines: no
   * expansion or substitution, assignment, subshell, compound command, function, background `&`,
   * here-document or here-string.
   */
  plain: boolean;
  /** False when the parser found a syntax error (what it could parse is still listed). */
  complete: boolean;
  /**
   * tree-sitter-bash ran a command on past the end of its line (`a | b | c\nrm x && d` as `c rm x`): the command
   * after the newline is listed as one of its own, but what the tree shows of pipes and `cd` there is not bash's.
   */
  misread?: true;
}
