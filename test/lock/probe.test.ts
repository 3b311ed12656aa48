/** The wire probe's pure decisions (lock/probe.ts): the interfaces asked, their keys, and what each answer means. */
import { describe, expect, it } from 'vitest';
import { classifyProbe, interfaceKey, keptProbe, type ProbeAnswer, probedInterfaces } from '../../src/lock/probe.js';
import type { Plan } from '../../src/negotiate/types.js';

const jsonrpc = (status: number, body: unknown, contentType = 'application/json'): ProbeAnswer => ({
  transport: 'http',
  binding: 'JSONRPC',
  version: '1.0',
  status,
  contentType,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
const rest = (status: number, body: unknown, contentType = 'application/json'): ProbeAnswer => ({
  ...(jsonrpc(status, body, contentType) as Extract<ProbeAnswer, { transport: 'http' }>),
  binding: 'HTTP+JSON',
});
const grpc = (code: number, details?: string, reason?: string): ProbeAnswer => ({
  transport: 'grpc',
  binding: 'GRPC',
  version: '1.0',
  code,
  ...(details ? { details } : {}),
  ...(reason ? { reason } : {}),
});
const kind = (answer: ProbeAnswer) => classifyProbe(answer).kind;

/** An HTTP+JSON 1.0 TaskNotFound body (google.rpc.Status with its ErrorInfo), and `more` details after it. */
function taskNotFoundStatus(...more: object[]) {
  return {
    error: {
      code: 404,
      status: 'NOT_FOUND',
      message: 'Task not found',
      details: [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' },
        ...more,
      ],
    },
  };
}
describe('classifyProbe', () => {
  it('served: the binding’s TaskNotFound', () => {
    expect(
      classifyProbe(jsonrpc(200, { jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'Task not found' } })),
    ).toEqual({
      kind: 'served',
      answered: 'HTTP 200 application/json, JSON-RPC -32001 TaskNotFound',
    });
    expect(kind(rest(404, taskNotFoundStatus(), 'application/a2a+json'))).toBe('served');
    expect(kind(rest(404, { code: -32001, message: 'Task not found' }))).toBe('served'); // 0.3, the JS SDK's REST
    expect(kind(grpc(5, 'Task not found', 'TASK_NOT_FOUND'))).toBe('served');
  });

  it('a body larger than the read bound is judged by what was read whole, and says so in its own words', () => {
    const cut = (answer: ProbeAnswer, bytes = 65536): ProbeAnswer => {
      const http = answer as Extract<ProbeAnswer, { transport: 'http' }>;
      return { ...http, body: http.body.slice(0, bytes), cutAt: bytes };
    };
    const trace = 'secret-ish server text '.repeat(5000);
    const big = { jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'Task not found', data: [{ trace }] } };
    expect(classifyProbe(cut(jsonrpc(200, big)))).toEqual({
      kind: 'served',
      answered: 'HTTP 200 application/json (larger than 64 KiB, read in part), JSON-RPC -32001 TaskNotFound',
    });
    const status = taskNotFoundStatus({ '@type': 'type.googleapis.com/google.rpc.DebugInfo', detail: trace });
    expect(classifyProbe(cut(rest(404, status, 'application/a2a+json')))).toEqual({
      kind: 'served',
      answered: 'HTTP 404 application/a2a+json (larger than 64 KiB, read in part), NOT_FOUND TASK_NOT_FOUND',
    });
    // What the part read says decides: a MethodNotFound is not served however large.
    const missing = { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'no such method', data: trace } };
    expect(kind(cut(jsonrpc(200, missing)))).toBe('not-served');
    // The cut came before the code: said plainly, not served.
    const late = { jsonrpc: '2.0', id: 1, error: { data: trace, code: -32001 } };
    expect(classifyProbe(cut(jsonrpc(200, late)))).toEqual({
      kind: 'not-served',
      answered: 'HTTP 200 application/json (larger than 64 KiB, read in part), JSON-RPC (no code) error',
    });
    // Not JSON at all: its size, never its text.
    const html = classifyProbe(cut(jsonrpc(404, `<html>${trace}`, 'text/html')));
    expect(html).toEqual({
      kind: 'not-served',
      answered: 'HTTP 404 text/html (larger than 64 KiB, read in part), not a JSON object (65536 characters)',
    });
  });

  it('one verdict whatever the size: junk after the value, or a key twice in one object, is not-served read whole or in part', () => {
    const cut = (answer: ProbeAnswer, bytes = 65536): ProbeAnswer => {
      const http = answer as Extract<ProbeAnswer, { transport: 'http' }>;
      return http.body.length > bytes ? { ...http, body: http.body.slice(0, bytes), cutAt: bytes } : http;
    };
    const junk = (n: number) => jsonrpc(200, `{"jsonrpc":"2.0","id":1,"result":{}}${'<html>'.repeat(n)}`);
    // hostile.mjs smallgarbage and prefixgarbage: 6 bytes or 72 KB of junk after a JSON-RPC result.
    expect(classifyProbe(cut(junk(1)))).toEqual({
      kind: 'not-served',
      answered: 'HTTP 200 application/json, not a JSON object (42 characters)',
    });
    expect(classifyProbe(cut(junk(12_000)))).toEqual({
      kind: 'not-served',
      answered: 'HTTP 200 application/json (larger than 64 KiB, read in part), not a JSON object (65536 characters)',
    });
    // Whitespace after the value is JSON.
    expect(kind(cut(jsonrpc(200, `{"jsonrpc":"2.0","id":1,"result":{}}${' \n'.repeat(40_000)}`)))).toBe('served');

    // Two `error` members (hostile.mjs bigdup's shape): JSON.parse keeps the last, a reader may take the first.
    const taskNotFound = (data: number) => `{"code":-32001,"message":"Task not found","data":"${'x'.repeat(data)}"}`;
    const methodNotFound = '{"code":-32601,"message":"Method not found"}';
    const twice: Array<[string, string]> = [
      [taskNotFound(1), methodNotFound],
      [methodNotFound, taskNotFound(1)],
      [methodNotFound, taskNotFound(70_000)],
      [taskNotFound(40_000), methodNotFound],
    ];
    for (const [first, second] of twice) {
      const answer = cut(jsonrpc(200, `{"jsonrpc":"2.0","id":1,"error":${first},"error":${second}}`));
      expect(kind(answer), `${first.slice(0, 20)} then ${second.slice(0, 20)}`).toBe('not-served');
    }
    expect(
      classifyProbe(jsonrpc(200, `{"jsonrpc":"2.0","id":1,"error":${methodNotFound},"error":${taskNotFound(1)}}`)),
    ).toEqual({ kind: 'not-served', answered: 'HTTP 200 application/json, a JSON object holding a key twice' });
    const status = '{"code":404,"status":"NOT_FOUND","message":"Task not found"}';
    expect(kind(rest(404, `{"error":{"code":404,"status":"UNIMPLEMENTED","message":"no"},"error":${status}}`))).toBe(
      'not-served',
    );
  });

  it('served: another well-formed A2A answer of the binding', () => {
    expect(
      kind(jsonrpc(200, { jsonrpc: '2.0', id: 1, result: { id: 'x', status: { state: 'TASK_STATE_COMPLETED' } } })),
    ).toBe('served');
    expect(kind(jsonrpc(200, { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad id' } }))).toBe('served');
    expect(kind(rest(200, { id: 'x' }))).toBe('served');
    expect(kind(rest(400, { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'bad id' } }))).toBe('served');
    expect(kind(grpc(3, 'bad id'))).toBe('served');
  });

  it('auth-required: an HTTP or gRPC authentication refusal', () => {
    expect(classifyProbe(jsonrpc(401, { error: 'unauthorized' }))).toEqual({
      kind: 'auth-required',
      answered: 'HTTP 401 application/json',
    });
    expect(kind(rest(403, '<html>forbidden</html>', 'text/html'))).toBe('auth-required');
    expect(kind(grpc(16, 'no token'))).toBe('auth-required');
    expect(kind(grpc(7, 'denied'))).toBe('auth-required');
  });

  it('not-served: an HTML 404 or 405, a non-A2A 500, UNIMPLEMENTED, VersionNotSupported, no connection', () => {
    const html = classifyProbe(
      jsonrpc(404, '<!DOCTYPE html>\n<html><title>Error</title></html>', 'text/html; charset=utf-8'),
    );
    expect(html).toEqual({
      kind: 'not-served',
      answered: 'HTTP 404 text/html, not a JSON object (49 characters)',
    });
    expect(kind(rest(405, '', 'text/plain'))).toBe('not-served');
    expect(kind(jsonrpc(500, { detail: 'Internal Server Error' }))).toBe('not-served');
    expect(kind(jsonrpc(500, 'Internal Server Error', 'text/plain'))).toBe('not-served');
    expect(kind(rest(404, { detail: 'Not Found' }))).toBe('not-served'); // a web framework's own 404, JSON but not A2A
    expect(kind(grpc(12, 'The server does not implement the method /lf.a2a.v1.A2AService/GetTask'))).toBe('not-served');
    expect(kind(grpc(14, 'connect ECONNREFUSED'))).toBe('not-served');
    expect(
      kind(jsonrpc(200, { jsonrpc: '2.0', id: 1, error: { code: -32009, message: 'version 1.0 not supported' } })),
    ).toBe('not-served');
    expect(kind(jsonrpc(200, { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } }))).toBe(
      'not-served',
    );
    expect(kind(rest(400, { code: -32009, message: 'not supported' }))).toBe('not-served');
    expect(
      kind(
        rest(400, {
          error: { code: 400, status: 'FAILED_PRECONDITION', details: [{ reason: 'VERSION_NOT_SUPPORTED' }] },
        }),
      ),
    ).toBe('not-served');
    expect(kind(grpc(9, 'no', 'VERSION_NOT_SUPPORTED'))).toBe('not-served');
    expect(kind(rest(302, '', 'text/html'))).toBe('not-served');
    expect(kind(jsonrpc(200, { ok: true }))).toBe('not-served');
    expect(
      classifyProbe({
        transport: 'none',
        binding: 'JSONRPC',
        version: '1.0',
        reason: 'connection refused (ECONNREFUSED)',
      }),
    ).toEqual({
      kind: 'not-served',
      answered: 'connection refused (ECONNREFUSED)',
    });
  });

  it("says what answered in its own words only: never the server's text, which may echo the credential split or encoded", () => {
    const secret = 'SUPERSECRETtoken0123456789';
    const groups = secret.match(/.{1,4}/g)!;
    // Spellings no redactor knows: groups joined by escapes, spaces or dots; every character percent-encoded.
    const echoes = [
      groups.join('\u001b[0m'),
      groups.join(' '),
      secret.match(/.{1,2}/g)!.join('.'),
      [...secret].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(''),
      [...secret].join('\u200b'),
    ];
    const fragments = [...groups, 'SUPE', 'RSEC', '%53%55', 'ken0'];
    for (const echo of echoes) {
      for (const answer of [
        jsonrpc(404, `<p>no route; Authorization: ${echo}</p>`, `text/html; x=${echo}`),
        jsonrpc(200, { jsonrpc: '2.0', id: 1, error: { code: -32001, message: echo, data: [{ reason: echo }] } }),
        jsonrpc(500, { detail: echo }),
        rest(404, { error: { code: 404, status: echo, message: echo, details: [{ reason: echo }] } }),
        rest(400, { code: -32009, message: echo }),
        grpc(12, echo, echo),
      ]) {
        const { answered } = classifyProbe(answer, [secret]);
        for (const fragment of fragments) expect(answered, echo).not.toContain(fragment);
        expect(answered!.length).toBeLessThanOrEqual(160);
        expect(answered).not.toMatch(/[\u0000-\u001f\u200b]/);
      }
    }
    // What it does say: the status, a known content type, the A2A code or reason, the size.
    expect(
      classifyProbe(rest(404, { error: { code: 404, status: 'NOT_FOUND', details: [{ reason: 'TASK_NOT_FOUND' }] } }))
        .answered,
    ).toBe('HTTP 404 application/json, NOT_FOUND TASK_NOT_FOUND');
    expect(classifyProbe(grpc(12, 'Method not found!')).answered).toBe('gRPC 12 UNIMPLEMENTED');
  });
});

describe('probedInterfaces and interfaceKey', () => {
  const plan = (url: string, extra: Partial<Plan> = {}): Plan => ({
    url,
    protocolBinding: 'JSONRPC',
    protocolVersion: '1.0',
    security: {},
    acceptedOutputModes: ['text/plain'],
    delivery: 'poll',
    extensions: [],
    ...extra,
  });

  it('asks each distinct interface once: every plan’s, then its locked fallbacks’', () => {
    const rest = { url: 'https://a.example/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' };
    const plans = {
      a: plan('https://a.example/rpc', { fallbacks: { interfaces: [rest], delivery: [] } }),
      b: plan('https://a.example/rpc'),
      c: plan('https://a.example/rpc', { tenant: 'acme' }),
    };
    expect(probedInterfaces(plans).map(interfaceKey)).toEqual([
      'JSONRPC 1.0 https://a.example/rpc',
      'HTTP+JSON 1.0 https://a.example/rest',
      'JSONRPC 1.0 https://a.example/rpc tenant=acme',
    ]);
  });

  it('keptProbe: this run’s kinds, else the previous ones, only for the interfaces still locked', () => {
    const plans = { a: plan('https://a.example/rpc') };
    const old = {
      'JSONRPC 1.0 https://a.example/rpc': 'served' as const,
      'JSONRPC 1.0 https://gone.example/rpc': 'not-served' as const,
    };
    expect(keptProbe(plans, undefined, old)).toEqual({ 'JSONRPC 1.0 https://a.example/rpc': 'served' });
    expect(keptProbe(plans, { 'JSONRPC 1.0 https://a.example/rpc': 'auth-required' }, old)).toEqual({
      'JSONRPC 1.0 https://a.example/rpc': 'auth-required',
    });
    expect(keptProbe({ b: plan('https://b.example/rpc') }, undefined, old)).toBeUndefined();
    expect(keptProbe(plans, undefined, undefined)).toBeUndefined();
  });

  it('keptProbe: an interface this run did not probe (its probe not sent) keeps the kind recorded before; the others take the new one', () => {
    const plans = {
      a: plan('https://a.example/rpc'),
      b: plan('https://b.example/rpc'),
      c: plan('https://c.example/rpc'),
    };
    const old = {
      'JSONRPC 1.0 https://a.example/rpc': 'served' as const,
      'JSONRPC 1.0 https://b.example/rpc': 'served' as const,
    };
    expect(keptProbe(plans, { 'JSONRPC 1.0 https://b.example/rpc': 'not-served' }, old)).toEqual({
      'JSONRPC 1.0 https://a.example/rpc': 'served',
      'JSONRPC 1.0 https://b.example/rpc': 'not-served',
    });
    expect(keptProbe(plans, { 'JSONRPC 1.0 https://c.example/rpc': 'served' }, undefined)).toEqual({
      'JSONRPC 1.0 https://c.example/rpc': 'served',
    });
  });
});
