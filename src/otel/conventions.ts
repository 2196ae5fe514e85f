/**
 * Which shape of the OpenTelemetry GenAI semantic conventions a run's spans take, and whether they carry content,
 * from the variables the conventions name. Pure: an environment in, settings out.
 *
 * - `OTEL_SEMCONV_STABILITY_OPT_IN` holding `gen_ai_latest_experimental`: the latest experimental conventions
 *   (`gen_ai.provider.name`, content as `gen_ai.input.messages` / `gen_ai.output.messages` / `gen_ai.system_instructions`
 *   / `gen_ai.tool.call.arguments` / `gen_ai.tool.call.result`). Without it, the v1.36 names: the provider is
 *   `gen_ai.system`, and content goes in the span events `gen_ai.content.prompt` / `gen_ai.content.completion`.
 * - `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`: content (messages, tool arguments and results) only when it
 *   is `true`, `SPAN_ONLY` or `SPAN_AND_EVENT` (case-insensitive); never by default.
 */

export interface GenAiConventions {
  /** The latest experimental conventions (opted in), or the v1.36 names. */
  latest: boolean;
  /** Messages, tool arguments and tool results go into the spans (opted in). */
  captureContent: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

export function conventionsFromEnv(env: Env): GenAiConventions {
  const optIn = (env.OTEL_SEMCONV_STABILITY_OPT_IN ?? '').split(',').map((s) => s.trim());
  const capture = (env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT ?? '').trim().toLowerCase();
  return {
    latest: optIn.includes('gen_ai_latest_experimental'),
    captureContent: capture === 'true' || capture === 'span_only' || capture === 'span_and_event',
  };
}

/** The attribute that names the provider, in each shape. */
export const providerKey = (conventions: GenAiConventions) => (conventions.latest ? 'gen_ai.provider.name' : 'gen_ai.system');

export const PROVIDER = 'anthropic';
export const AGENT_NAME = 'agentloop';
