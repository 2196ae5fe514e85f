/**
 * Which variables of the environment are credentials: by name (`*_API_KEY`, `*_TOKEN`,
 * `PGPASSWORD`, `DB_PASS`, `GH_PAT`, ...) or by value (a URL with a password, the well-known token
 * shapes, JWTs, private key blocks). Commands do not get them unless allowed by name, and their
 * values are cut out of what a command prints (and of everything else agentloop writes: core/redact.ts).
 */
import { OTLP_HEADERS, otlpSecrets } from '../../../core/credentials.js';
import { createRedactor, learningRedactor, redactionOrder as orderForRedaction, type LearningRedactor, type Redactor, type SecretValue } from '../../../core/redact.js';

export type { SecretValue };

/** Words (between `_`) that make a name a credential; a word may also end with the first four. */
const SECRET_SUFFIXES = ['TOKEN', 'SECRET', 'PASSWORD', 'PASSWD'];
const SECRET_WORDS = new Set([
  ...SECRET_SUFFIXES,
  'PASS', 'PASSPHRASE', 'APIKEY', 'CREDENTIAL', 'CREDENTIALS', 'PAT', 'AUTH', 'COOKIE', 'DSN', 'PRIVATE',
]);
/** Names that hold no credential although a word says so. */
const NOT_SECRET = new Set(['PWD', 'OLDPWD', 'SSH_AUTH_SOCK', 'GIT_ASKPASS', 'SSH_ASKPASS', 'SUDO_ASKPASS']);

export function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  if (NOT_SECRET.has(upper)) return false;
  // The OTLP exporters' headers (`OTEL_EXPORTER_OTLP_HEADERS`, `..._TRACES_HEADERS`): a collector's credential.
  if (OTLP_HEADERS.test(upper)) return true;
  const words = upper.split('_').filter((w) => w !== '');
  const last = words.at(-1) ?? '';
  // `*_KEY`, `*_KEY_ID` (AWS_ACCESS_KEY_ID), `*_PWD` (MYSQL_PWD): the last word of a longer name.
  if (words.length > 1 && (last === 'KEY' || last === 'PWD' || (last === 'ID' && words.at(-2) === 'KEY'))) return true;
  if (/^(CONNECTION|CONN)$/.test(words.at(-2) ?? '') && last === 'STRING') return true;
  return words.some((w) => SECRET_WORDS.has(w) || SECRET_SUFFIXES.some((s) => w.endsWith(s) && w.length > s.length));
}

/** Value shapes of credentials, each with what it is. */
const SHAPES: [what: string, pattern: RegExp][] = [
  ['URL with a password', /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:[^\s/@]+@[^\s/@]/i],
  ['URL with a token as user', /\bhttps?:\/\/[A-Za-z0-9_-]{20,}@[^\s/@]/],
  ['URL with a credential in its query', /\b[a-z][a-z0-9+.-]*:\/\/[^\s?#]*\?(?:[^\s#]*&)?[^\s=&#]*(?:key|token|secret|passw|pwd|auth|sig|credential)[^\s=&#]*=[^\s&#]/i],
  ['Anthropic key', /\bsk-ant-[a-z]+\d*-[A-Za-z0-9_-]{20,}/],
  ['OpenAI-style key', /\bsk-(proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/],
  ['GitHub token', /\bgh[pousr]_[A-Za-z0-9]{30,}/],
  ['GitHub fine-grained token', /\bgithub_pat_[A-Za-z0-9_]{22,}/],
  ['GitLab token', /\bgl(pat|dt|ptt|rt|cbt)-[A-Za-z0-9_-]{20,}/],
  ['Slack token', /\bxox[abposre]-[A-Za-z0-9-]{10,}/],
  ['Slack webhook', /\bhooks\.slack\.com\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]+/],
  ['AWS access key id', /\b(AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/],
  ['Google API key', /\bAIza[0-9A-Za-z_-]{35}\b/],
  ['Google OAuth token', /\bya29\.[0-9A-Za-z_-]{20,}/],
  ['Stripe key', /\b(sk|rk)_(live|test)_[0-9A-Za-z]{16,}/],
  ['Stripe webhook secret', /\bwhsec_[0-9A-Za-z]{24,}/],
  ['npm token', /\bnpm_[A-Za-z0-9]{36}\b/],
  ['PyPI token', /\bpypi-AgE[A-Za-z0-9_-]{50,}/],
  ['Hugging Face token', /\bhf_[A-Za-z0-9]{30,}\b/],
  ['SendGrid key', /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/],
  ['DigitalOcean token', /\bdo[por]_v1_[a-f0-9]{64}\b/],
  ['Shopify token', /\bshp(at|ca|pa|ss)_[a-fA-F0-9]{32}\b/],
  ['Vault token', /\bhv[sbr]\.[A-Za-z0-9_-]{24,}/],
  ['Databricks token', /\bdapi[0-9a-f]{32}\b/],
  ['Twilio key', /\bSK[0-9a-f]{32}\b/],
  ['Mailgun key', /\bkey-[0-9a-f]{32}\b/],
  ['Linear key', /\blin_api_[A-Za-z0-9]{32,}/],
  ['Notion token', /\b(secret|ntn)_[A-Za-z0-9]{40,}/],
  ['age secret key', /\bAGE-SECRET-KEY-1[0-9A-Z]{50,}/],
  ['Telegram bot token', /\b\d{8,10}:AA[A-Za-z0-9_-]{30,}/],
  ['JWT', /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/],
  ['private key block', /-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----/],
  ['connection string with a password', /(^|;)\s*(Password|Pwd|AccountKey|SharedAccessKey)\s*=\s*[^;\s]+/i],
  ['bearer or basic credentials', /^(Bearer|Basic|token)\s+[A-Za-z0-9._~+/=-]{16,}$/i],
];

/** What credential `value` looks like, or null. */
export function secretShape(value: string): string | null {
  for (const [what, pattern] of SHAPES) if (pattern.test(value)) return what;
  return null;
}

/**
 * The credential values of `base` (allowed ones included: a command may print them) and `extra`
 * (e.g. an API key read from a .env file), longest first.
 */
export function secretValues(base: Readonly<Record<string, string | undefined>>, extra: readonly SecretValue[] = []): SecretValue[] {
  const found = scanOf(base);
  // The parts of an OTLP exporter's headers and endpoint too: a header's token, a query's api_key, on their own.
  return extra.length === 0 ? [...found.ordered] : redactionOrder([...extra, ...found.otlp], found.judged);
}

/** What one scan of an environment found, with the names and values it saw (`pairs`: name, value, name, value...). */
interface Scan {
  pairs: string[];
  judged: SecretValue[];
  otlp: SecretValue[];
  /** `redactionOrder(otlp, judged)`: what `secretValues` gives without extras. */
  ordered: SecretValue[];
}

/**
 * The last scan of each environment object (process.env, or a run's own), kept while it holds the same names and
 * values. Every run of a process scans its environment for credentials (runAgent's default redactor); a run of many
 * at once spent ~0.1 ms of its start on it (bench/many.ts). A scan is used again only when one read of every
 * variable finds each name and value as they were, in the same order: a variable set, changed or removed since
 * (process.env is anyone's to change) is scanned anew, so a cache never hides a credential.
 */
const scans = new WeakMap<object, Scan>();

function scanOf(env: Readonly<Record<string, string | undefined>>): Scan {
  const last = scans.get(env);
  if (last && sameVariables(env, last.pairs)) return last;
  const pairs: string[] = [];
  const judged: SecretValue[] = [];
  for (const name of Object.keys(env)) {
    const value = env[name];
    if (value === undefined) continue;
    pairs.push(name, value);
    if (judgedSecret(name, value)) judged.push({ name, value });
  }
  const otlp = otlpSecrets(env);
  const scan = { pairs, judged, otlp, ordered: redactionOrder(otlp, judged) };
  scans.set(env, scan);
  return scan;
}

/** Whether `env` holds exactly `pairs`' variables, with their values, in their order. */
function sameVariables(env: Readonly<Record<string, string | undefined>>, pairs: readonly string[]): boolean {
  let at = 0;
  for (const name of Object.keys(env)) {
    const value = env[name];
    if (value === undefined) continue;
    if (pairs[at] !== name || pairs[at + 1] !== value) return false;
    at += 2;
  }
  return at === pairs.length;
}

/**
 * The last verdict of `isSecretVariable` on each variable name, with the value it judged. Every run judges the whole
 * environment again (runAgent's default redactor): some 30 patterns on each of ~60 values took ~0.3 ms a run, the
 * largest part of a short run's set-up (BENCHMARKS.md, section 1). A value judged before is not tried again; a
 * changed value is. One entry per name, so it holds no more than the environment does.
 */
const verdicts = new Map<string, { value: string; secret: boolean }>();

function judgedSecret(name: string, value: string): boolean {
  const known = verdicts.get(name);
  if (known?.value === value) return known.secret;
  const secret = isSecretVariable(name, value);
  verdicts.set(name, { value, secret });
  return secret;
}

/** The API key and the auth token, as values never shown. */
export function clientSecrets(client: { apiKey?: string | undefined; authToken?: string | undefined } | undefined): SecretValue[] {
  return [
    ...(client?.apiKey ? [{ name: 'ANTHROPIC_API_KEY', value: client.apiKey }] : []),
    ...(client?.authToken ? [{ name: 'ANTHROPIC_AUTH_TOKEN', value: client.authToken }] : []),
  ];
}

/**
 * The redactor of a run (core/redact.ts): the client's key and token, also when they came from a `.env` file, and the
 * value of every credential variable of `env` (by name or shape, as commands are denied them), each `[redacted NAME]`.
 */
export function credentialRedactor(
  env: Readonly<Record<string, string | undefined>>,
  client?: Parameters<typeof clientSecrets>[0],
  extra: readonly SecretValue[] = [],
): LearningRedactor {
  return learningRedactor(secretValues(env, [...clientSecrets(client), ...extra]));
}

/** A credential, by its name or its value (the variables commands do not get unless allowed). */
export function isSecretVariable(name: string, value: string): boolean {
  return isSecretName(name) || secretShape(value) !== null;
}

/** `extra` and `values` as `redact` takes them: long enough to cut out, each value once, longest first. */
export function redactionOrder(extra: readonly SecretValue[], values: readonly SecretValue[]): SecretValue[] {
  return orderForRedaction([...extra, ...values]);
}

const redactors = new WeakMap<readonly SecretValue[], Redactor>();

/** `text` with every secret value replaced by `[redacted NAME]`, in every form core/redact.ts finds. */
export function redact(text: string, secrets: readonly SecretValue[]): string {
  let redactor = redactors.get(secrets);
  if (!redactor) redactors.set(secrets, (redactor = createRedactor(secrets)));
  return redactor.text(text);
}
