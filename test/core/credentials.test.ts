/**
 * core/credentials.ts: the credentials of the OTLP exporters' variables and of MCP servers' configurations, each in
 * the forms it is sent in; and core/redact.ts's learning redactor, which every holder sees learn.
 */
import { describe, expect, it } from 'vitest';
import { mcpSecrets, otlpSecrets } from '../../src/core/credentials.js';
import { learningRedactor } from '../../src/core/redact.js';
import { commandEnv } from '../../src/tools/bash/run/env.js';

const values = (list: { value: string }[]) => list.map((s) => s.value);

describe('the credentials agentloop is given', () => {
  it("OTLP: each header's value (URL-decoded, its token after a scheme), the variable whole, an endpoint's user, password and query", () => {
    const found = otlpSecrets({
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=abcdefgh12345678,authorization=Bearer%20tok-0123456789',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://user-name-1:pass%2Fword99@collector:4318/v1/traces?api_key=query-key-42424242&region=eu-west-1',
      OTEL_SERVICE_NAME: 'not-a-credential-at-all',
    });
    expect(values(found)).toEqual(
      expect.arrayContaining(['abcdefgh12345678', 'tok-0123456789', 'user-name-1', 'pass/word99', 'pass%2Fword99', 'query-key-42424242']),
    );
    expect(values(found)).toContain('x-api-key=abcdefgh12345678,authorization=Bearer%20tok-0123456789');
    expect(values(found)).not.toContain('not-a-credential-at-all');
  });

  it("MCP: env values the agent's environment does not hold as they are, headers but the harmless ones, a URL's credentials", () => {
    const found = mcpSecrets(
      {
        s: { type: 'stdio', env: { SERVICE_CONFIG: 'plain-looking-value', PATH: '/usr/bin:/bin' } },
        h: { type: 'http', url: 'https://mcp.example/mcp?token=url-token-777777', headers: { Authorization: 'Bearer header-token-1', 'Content-Type': 'application/json' } },
      },
      { PATH: '/usr/bin:/bin' },
    );
    expect(found).toEqual(expect.arrayContaining([{ name: 'mcp server s', value: 'plain-looking-value' }, { name: 'mcp server h', value: 'header-token-1' }, { name: 'mcp server h', value: 'url-token-777777' }]));
    expect(values(found)).not.toContain('/usr/bin:/bin');
    expect(values(found)).not.toContain('application/json');
  });

  it('commands get no OTLP header variable, nor an endpoint with a credential in its query; an endpoint without one they do get', () => {
    const env = commandEnv({
      OTEL_EXPORTER_OTLP_HEADERS: 'x-honeycomb-team=abc',
      OTEL_EXPORTER_OTLP_LOGS_HEADERS: 'k=v',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces?api_key=abc',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
    });
    expect(Object.keys(env).filter((k) => k.startsWith('OTEL_'))).toEqual(['OTEL_EXPORTER_OTLP_ENDPOINT']);
  });

  it('a learning redactor: who holds it cuts what it learns later', () => {
    const redactor = learningRedactor();
    expect(redactor.active).toBe(false);
    expect(redactor.text('a late-secret-123 b')).toBe('a late-secret-123 b');
    redactor.learn([{ name: 'LATE', value: 'late-secret-123' }]);
    expect(redactor.active).toBe(true);
    expect(redactor.text('a late-secret-123 b')).toBe('a [redacted LATE] b');
    expect(redactor.json({ k: 'late-secret-123' })).toBe('{"k":"[redacted LATE]"}');
  });
});
