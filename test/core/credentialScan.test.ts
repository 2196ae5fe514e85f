/**
 * The environment's credential scan is kept per environment object (tools/bash/judge/secrets.ts `secretValues`) and
 * a redactor's patterns per set of secrets (core/redact.ts `createRedactor`): a property test that no sequence of
 * changes to an environment (a variable set, changed, removed, set again) ever gets a stale answer, so no credential
 * leaks because a cache was kept; and process.env itself, changed between runs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { otlpSecrets } from '../../src/core/credentials.js';
import { credentialRedactor, isSecretVariable, redactionOrder, secretValues, type SecretValue } from '../../src/tools/bash/judge/secrets.js';

/** What `secretValues` gives when nothing is kept: every variable judged, the OTLP parts, in redaction order. */
function scannedAfresh(env: Record<string, string | undefined>, extra: SecretValue[] = []): SecretValue[] {
  const judged = Object.keys(env).flatMap((name) => {
    const value = env[name];
    return value !== undefined && isSecretVariable(name, value) ? [{ name, value }] : [];
  });
  return redactionOrder([...extra, ...otlpSecrets(env)], judged);
}

const NAMES = ['HOME', 'PLAIN', 'GH_TOKEN', 'DB_PASSWORD', 'SERVICE_URL', 'OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'AWS_ACCESS_KEY_ID'];
const VALUES = [
  'plain-value-one',
  'plain-value-two',
  'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
  'ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  'https://user:hunter2-secret@db.example/x',
  'x-api-key=abcdefgh12345678',
  'x-api-key=zyxwvuts87654321',
  'AKIAABCDEFGHIJKLMNOP',
];

type Step = { op: 'set'; name: string; value: string } | { op: 'delete'; name: string } | { op: 'scan' };
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('set' as const), name: fc.constantFrom(...NAMES), value: fc.constantFrom(...VALUES) }),
  fc.record({ op: fc.constant('delete' as const), name: fc.constantFrom(...NAMES) }),
  fc.constant({ op: 'scan' as const }),
);

function apply(env: Record<string, string | undefined>, s: Step): void {
  if (s.op === 'set') env[s.name] = s.value;
  else if (s.op === 'delete') delete env[s.name];
}

/** A text holding every value of the environment: the redactor must leave none of the credentials in it. */
const everything = (env: Record<string, string | undefined>) => Object.values(env).join(' | ');

describe('the credential scan kept between runs', () => {
  it('never answers from a stale scan: every change to an environment is seen by the next scan and redactor', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), fc.boolean(), (steps, withKey) => {
        const env: Record<string, string | undefined> = {};
        const extra = withKey ? [{ name: 'ANTHROPIC_API_KEY', value: 'sk-ant-api03-test-key-0000' }] : [];
        for (const s of steps) {
          apply(env, s);
          expect(secretValues(env, extra)).toEqual(scannedAfresh(env, extra));
          const redactor = credentialRedactor(env, withKey ? { apiKey: 'sk-ant-api03-test-key-0000' } : undefined);
          const shown = redactor.text(everything(env));
          for (const secret of scannedAfresh(env, extra)) expect(shown).not.toContain(secret.value);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('two environment objects are kept apart: each is scanned as it is', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), step), { minLength: 1, maxLength: 40 }), (steps) => {
        const envs: [Record<string, string | undefined>, Record<string, string | undefined>] = [{}, {}];
        for (const [which, s] of steps) {
          apply(envs[which ? 1 : 0], s);
          for (const env of envs) expect(secretValues(env)).toEqual(scannedAfresh(env));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('process.env changed between runs: a credential set, changed or removed after a scan is seen by the next', () => {
    const name = 'AGENTLOOP_SCAN_TEST_TOKEN';
    const before = credentialRedactor(process.env);
    expect(before.text('x plain-but-long-token-1 y')).toBe('x plain-but-long-token-1 y');
    try {
      process.env[name] = 'plain-but-long-token-1';
      expect(credentialRedactor(process.env).text('x plain-but-long-token-1 y')).toBe(`x [redacted ${name}] y`);
      process.env[name] = 'plain-but-long-token-2';
      const changed = credentialRedactor(process.env);
      expect(changed.text('x plain-but-long-token-2 y')).toBe(`x [redacted ${name}] y`);
      expect(changed.text('x plain-but-long-token-1 y')).toBe('x plain-but-long-token-1 y');
    } finally {
      delete process.env[name];
    }
    expect(secretValues(process.env).some((s) => s.name === name)).toBe(false);
  });

  it('what secretValues gives is the caller’s own: changing it changes nothing kept', () => {
    const env = { GH_TOKEN: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789' };
    secretValues(env).length = 0;
    expect(secretValues(env)).toEqual([{ name: 'GH_TOKEN', value: env.GH_TOKEN }]);
  });
});
