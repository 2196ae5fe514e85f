/** The bash tool's names: `bash` to the model (the chapter's tool), Claude Code's `Bash` to hooks, rules and outputs. */
export const BASH_TOOL_NAME = 'bash';
export const BASH_PUBLIC_NAME = 'Bash';
