/**
 * Credentials by name and by value: withheld from commands unless allowed by name, and cut out
 * of what a command prints. The values are made up here, with random bodies of the real shapes. What a real command
 * sees is tried as root and again as nobody (test/support/bashAs.ts: the tool in a process of nobody's own).
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bashToolAs, handTo, type BashAs } from '../../support/bashAs.js';
import { testUsers } from '../../support/users.js';
import { CommandEnvironment, commandEnv } from '../../../src/tools/bash/run/env.js';
import { isSecretName, redact, secretShape, secretValues } from '../../../src/tools/bash/judge/secrets.js';
import { context, makeTempDir } from './bashHelpers.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const HEX = '0123456789abcdef';
const B64URL = `${ALNUM}_-`;
/** `n` random characters of `alphabet`. */
const r = (n: number, alphabet = ALNUM): string => [...randomBytes(n)].map((b) => alphabet[b % alphabet.length]).join('');
const jwtPart = (json: object) => Buffer.from(JSON.stringify(json)).toString('base64url');

// Each a credential by its value alone (under a harmless name).
const CREDENTIALS: [what: string, value: string][] = [
  ['postgres URL with a password', `postgres://app:${r(12)}@db.internal:5432/prod`],
  ['postgresql URL', `postgresql://u:p${r(6)}@h/db`],
  ['mysql URL', `mysql://root:${r(10)}@127.0.0.1/shop`],
  ['redis URL with a password only', `redis://:${r(16)}@cache:6379/0`],
  ['rediss URL', `rediss://default:${r(20)}@redis.example.com:6380`],
  ['mongodb+srv URL', `mongodb+srv://admin:${r(14)}@cluster0.abcde.mongodb.net/test`],
  ['amqp URL', `amqp://guest:${r(8)}@rabbit:5672/`],
  ['https URL with basic auth', `https://deploy:${r(24)}@git.example.com/repo.git`],
  ['GitHub x-access-token URL', `https://x-access-token:ghs_${r(36)}@github.com/o/r.git`],
  ['ftp URL', `ftp://user:${r(9)}@ftp.example.org/pub`],
  ['Sentry DSN', `https://${r(32, HEX)}@o123456.ingest.sentry.io/1234567`],
  ['Anthropic API key', `sk-ant-api03-${r(93, B64URL)}AA`],
  ['Anthropic admin key', `sk-ant-admin01-${r(80, B64URL)}`],
  ['OpenAI key', `sk-${r(48)}`],
  ['OpenAI project key', `sk-proj-${r(64, B64URL)}`],
  ['GitHub classic token', `ghp_${r(36)}`],
  ['GitHub OAuth token', `gho_${r(36)}`],
  ['GitHub app user token', `ghu_${r(36)}`],
  ['GitHub app server token', `ghs_${r(36)}`],
  ['GitHub refresh token', `ghr_${r(36)}`],
  ['GitHub fine-grained PAT', `github_pat_${r(22)}_${r(59)}`],
  ['GitLab PAT', `glpat-${r(20, B64URL)}`],
  ['Slack bot token', `xoxb-${r(11, '0123456789')}-${r(12, '0123456789')}-${r(24)}`],
  ['Slack user token', `xoxp-${r(11, '0123456789')}-${r(11, '0123456789')}-${r(12, '0123456789')}-${r(32, HEX)}`],
  ['Slack app token', `xoxa-2-${r(30)}`],
  ['Slack webhook', `https://hooks.slack.com/services/T${r(8, UPPER)}/B${r(8, UPPER)}/${r(24)}`],
  ['AWS access key id', `AKIA${r(16, UPPER)}`],
  ['AWS temporary key id', `ASIA${r(16, UPPER)}`],
  ['Google API key', `AIza${r(35, B64URL)}`],
  ['Google OAuth access token', `ya29.${r(60, B64URL)}`],
  ['Stripe live secret key', `sk_live_${r(24)}`],
  ['Stripe test secret key', `sk_test_${r(24)}`],
  ['Stripe restricted key', `rk_live_${r(24)}`],
  ['Stripe webhook secret', `whsec_${r(32)}`],
  ['npm token', `npm_${r(36)}`],
  ['PyPI token', `pypi-AgEIcHlwaS5vcmc${r(60, B64URL)}`],
  ['Hugging Face token', `hf_${r(34)}`],
  ['SendGrid key', `SG.${r(22, B64URL)}.${r(43, B64URL)}`],
  ['DigitalOcean token', `dop_v1_${r(64, HEX)}`],
  ['Shopify access token', `shpat_${r(32, HEX)}`],
  ['Vault service token', `hvs.${r(90, B64URL)}`],
  ['Databricks token', `dapi${r(32, HEX)}`],
  ['Twilio API key', `SK${r(32, HEX)}`],
  ['Mailgun key', `key-${r(32, HEX)}`],
  ['Linear API key', `lin_api_${r(40)}`],
  ['Notion token', `ntn_${r(46)}`],
  ['age secret key', `AGE-SECRET-KEY-1${r(58, UPPER)}`],
  ['Telegram bot token', `${r(10, '123456789')}:AA${r(33, B64URL)}`],
  ['JWT', `${jwtPart({ alg: 'HS256', typ: 'JWT' })}.${jwtPart({ sub: '1234567890', iat: 1516239022 })}.${r(43, B64URL)}`],
  ['RSA private key block', `-----BEGIN RSA PRIVATE KEY-----\nMIIEow${r(60)}\n-----END RSA PRIVATE KEY-----`],
  ['OpenSSH private key block', `-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA${r(40)}\n-----END OPENSSH PRIVATE KEY-----`],
  ['PKCS#8 private key block', `-----BEGIN PRIVATE KEY-----\nMIIEvg${r(60)}\n-----END PRIVATE KEY-----`],
  ['EC private key block', `-----BEGIN EC PRIVATE KEY-----\nMHcC${r(60)}\n-----END EC PRIVATE KEY-----`],
  ['encrypted private key block', `-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIF${r(60)}\n-----END ENCRYPTED PRIVATE KEY-----`],
  ['PGP private key block', `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOY${r(60)}\n-----END PGP PRIVATE KEY BLOCK-----`],
  ['Azure storage connection string', `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${r(86)}==;EndpointSuffix=core.windows.net`],
  ['SQL Server connection string', `Server=tcp:db.example.com,1433;Database=app;User ID=sa;Password=${r(14)};`],
  ['Bearer header value', `Bearer ${r(40, B64URL)}`],
];

// Values that look a little like credentials and are not.
const HARMLESS: string[] = [
  'https://example.com/path?query=1',
  'https://user@example.com/repo.git',
  'ssh://git@github.com/owner/repo.git',
  'git@github.com:owner/repo.git',
  'postgres://localhost/dev',
  'postgres://app@db:5432/prod',
  'http://[::1]:3000/health',
  'http://127.0.0.1:8080',
  'file:///home/me/project',
  'mailto:someone@example.com',
  '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  'en_US.UTF-8',
  'xterm-256color',
  'rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35',
  '--max-old-space-size=4096',
  '4fc9929e6a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d',
  '123e4567-e89b-12d3-a456-426614174000',
  'sk-1',
  'ghp_short',
  'AKIAlowercase0000000',
  'eyJhbGciOiJIUzI1NiJ9',
  'a.b.c',
  '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----',
  '-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+g\n-----END CERTIFICATE-----',
  'xoxo hugs',
  'Bearer',
  'v20.20.2',
  ':0',
  '/tmp/ssh-XXXXabcd/agent.1234',
  'sk_test',
];

describe('credentials by value', () => {
  it('has at least 40 shapes and 20 look-alikes in this table', () => {
    expect(CREDENTIALS.length).toBeGreaterThanOrEqual(40);
    expect(HARMLESS.length).toBeGreaterThanOrEqual(20);
  });

  it.each(CREDENTIALS)('recognises %s', (_what, value) => {
    expect(secretShape(value)).not.toBeNull();
    expect(commandEnv({ SOME_SETTING: value }).SOME_SETTING).toBeUndefined();
  });

  it.each(HARMLESS)('passes %j on', (value) => {
    expect(secretShape(value)).toBeNull();
    expect(commandEnv({ SOME_SETTING: value }).SOME_SETTING).toBe(value);
  });
});

describe('credentials by name', () => {
  it.each([
    'ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'OPENAI_API_KEY', 'GITHUB_TOKEN', 'GH_TOKEN', 'GH_PAT', 'NPM_TOKEN',
    'CLIENT_SECRET', 'AWS_SECRET_ACCESS_KEY', 'AWS_ACCESS_KEY_ID', 'AWS_SESSION_TOKEN', 'DB_PASSWORD', 'DB_PASS',
    'PGPASSWORD', 'MYSQL_PWD', 'SMTP_PASSWD', 'GPG_PASSPHRASE', 'REDISCLI_AUTH', 'SENTRY_DSN', 'STRIPE_KEY',
    'GOOGLE_APPLICATION_CREDENTIALS', 'DOCKER_AUTH_CONFIG', 'SESSION_COOKIE', 'DATABASE_CONNECTION_STRING',
    'githubtoken', 'Private_Key',
  ])('%s is withheld whatever its value', (name) => {
    expect(isSecretName(name)).toBe(true);
    expect(commandEnv({ [name]: 'x' })[name]).toBeUndefined();
  });

  it.each([
    'PATH', 'HOME', 'PWD', 'OLDPWD', 'TOKENIZER_PATH', 'TOKENIZERS_PARALLELISM', 'GIT_AUTHOR_NAME', 'COMPASS_HOME',
    'SSH_AUTH_SOCK', 'GIT_ASKPASS', 'KEYBOARD_LAYOUT', 'LANG', 'PASSENGER_APP_ENV', 'NODE_ENV', 'DATABASE_URL',
  ])('%s is passed on (with a harmless value)', (name) => {
    expect(isSecretName(name)).toBe(false);
    expect(commandEnv({ [name]: 'plain' })[name]).toBe('plain');
  });

  it('--allow-env NAME passes a credential on, by name only', () => {
    const url = `postgres://u:${r(10)}@h/db`;
    const env = commandEnv({ DATABASE_URL: url, GH_PAT: 'ghp_x', OTHER_URL: url }, ['DATABASE_URL', 'GH_PAT']);
    expect(env).toMatchObject({ DATABASE_URL: url, GH_PAT: 'ghp_x' });
    expect(env.OTHER_URL).toBeUndefined();
  });
});

describe('secretValues: each variable judged once per value', () => {
  it('judges a variable again when its value changes, and forgets a credential that became harmless', () => {
    const name = `BENCH_SETTING_${r(6)}`;
    const token = `ghp_${r(36)}`;
    expect(secretValues({ [name]: 'plain value' })).toEqual([]);
    expect(secretValues({ [name]: token })).toEqual([{ name, value: token }]);
    expect(secretValues({ [name]: token })).toEqual([{ name, value: token }]);
    expect(secretValues({ [name]: 'plain again' })).toEqual([]);
    expect(secretValues({ [name]: undefined })).toEqual([]);
  });
});

describe('CommandEnvironment: the base environment read again at each command', () => {
  it('sees variables added, changed and removed since the last command, as commandEnv and secretValues would', () => {
    const environment = new CommandEnvironment(['ALLOWED_TOKEN']);
    const token = `ghp_${r(36)}`;
    const base: Record<string, string | undefined> = { PATH: '/bin', SETTING: 'plain value', ALLOWED_TOKEN: `t-${r(20)}` };
    const extra = [{ name: 'ANTHROPIC_API_KEY', value: `sk-ant-api03-${r(40, B64URL)}` }];
    const same = () => {
      const { env, secrets } = environment.read(base, extra);
      expect(env).toEqual(commandEnv(base, ['ALLOWED_TOKEN']));
      expect(secrets).toEqual(secretValues(base, extra));
      expect(environment.read(base).secrets).toEqual(secretValues(base));
      return { env, secrets };
    };
    expect(same().env.SETTING).toBe('plain value');
    base.SETTING = token; // now a credential by its value
    expect(same().env.SETTING).toBeUndefined();
    base.DB_PASS = r(16);
    base.EDITOR = 'vim';
    expect(same().env).toMatchObject({ EDITOR: 'false', ALLOWED_TOKEN: base.ALLOWED_TOKEN });
    delete base.SETTING;
    base.DB_PASS = undefined;
    expect(same().secrets.map((s) => s.name).sort()).toEqual(['ALLOWED_TOKEN', 'ANTHROPIC_API_KEY']);
  });
});

describe('redaction of what a command prints', () => {
  it('cuts out every credential value of the environment, longest first, and the extra secrets', () => {
    const key = `sk-ant-api03-${r(40, B64URL)}`;
    const secrets = secretValues({ DATABASE_URL: `postgres://u:${'p'.repeat(12)}@h/db`, PLAIN: 'hello world', SHORT_TOKEN: 'abc' }, [
      { name: 'ANTHROPIC_API_KEY', value: key },
    ]);
    const text = `url=postgres://u:${'p'.repeat(12)}@h/db key=${key} plain=hello world short=abc`;
    expect(redact(text, secrets)).toBe('url=[redacted DATABASE_URL] key=[redacted ANTHROPIC_API_KEY] plain=hello world short=abc');
  });
});

/** Prints each variable whose name starts with `prefix` as NAME=base64(value): what the output redaction cannot cut. */
const PRINT_ENCODED = (prefix: string) =>
  `for n in $(compgen -e | grep '^${prefix}'); do printf '%s=%s\\n' "$n" "$(printf %s "\${!n}" | base64 -w0)"; done`;

// 90 s: nobody's first case starts nobody's process (seconds on a loaded machine); a bound only against hanging.
describe.each(testUsers())('what a command sees, as $name', { timeout: 90_000 }, (user) => {
  let dir: string;
  let cleanup: (() => void) | undefined;
  const tools: BashAs[] = [];
  const toolWith = (options: Parameters<typeof bashToolAs>[1]) => {
    const tool = bashToolAs(user, options);
    tools.push(tool);
    return tool;
  };
  beforeEach((ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    ({ dir, cleanup } = makeTempDir());
    handTo(user, dir);
  });
  afterEach(() => {
    for (const tool of tools.splice(0)) tool.close();
    cleanup?.();
    cleanup = undefined;
  });

  it('no credential of the table reaches a command under a harmless name; every look-alike does, unchanged', async () => {
    const env: Record<string, string | undefined> = { PATH: process.env.PATH };
    CREDENTIALS.forEach(([, value], i) => (env[`CRED_${i}`] = value));
    HARMLESS.forEach((value, i) => (env[`LOOK_${i}`] = value));
    const run = await toolWith({ env }).run({ command: `${PRINT_ENCODED('CRED_')}; ${PRINT_ENCODED('LOOK_')}` }, context(dir));
    expect(run.isError, run.content).toBe(false);
    const seen = Object.fromEntries(
      run.content.split('\n').map((line) => [line.slice(0, line.indexOf('=')), Buffer.from(line.slice(line.indexOf('=') + 1), 'base64').toString()]),
    );
    expect(Object.keys(seen).filter((name) => name.startsWith('CRED_'))).toEqual([]);
    expect(seen).toEqual(Object.fromEntries(HARMLESS.map((value, i) => [`LOOK_${i}`, value])));
  });

  it('the issue’s credentials never reach a command, nor its output when allowed', async () => {
    const env = {
      PATH: process.env.PATH,
      DATABASE_URL: `postgres://u:${r(12)}@h/db`,
      PGPASSWORD: r(16),
      DB_PASS: r(16),
      GH_PAT: `ghp_${r(36)}`,
      REDIS_URL: `redis://:${r(16)}@cache:6379`,
      HARMLESS_URL: 'https://example.com/',
    };
    const tool = toolWith({ env, allowEnv: ['GH_PAT'] });
    const r1 = await tool.run({ command: 'env; echo "pat has ${#GH_PAT} characters"; echo "$GH_PAT"' }, context(dir));
    for (const name of ['DATABASE_URL', 'PGPASSWORD', 'DB_PASS', 'GH_PAT', 'REDIS_URL'] as const) {
      expect(r1.content).not.toContain(env[name]);
    }
    expect(r1.content).toContain('pat has 40 characters'); // allowed: the command has it
    expect(r1.content).toContain('[redacted GH_PAT]'); // but the model never sees it
    expect(r1.content).toContain('HARMLESS_URL=https://example.com/');
    expect(r1.content).not.toMatch(/^(DATABASE_URL|PGPASSWORD|DB_PASS|REDIS_URL)=/m);
  });
});
