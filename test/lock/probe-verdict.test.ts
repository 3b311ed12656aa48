/** `verify --probe`'s verdict (lock/probe-verdict.ts): the table of recorded kind × kind now, on each report status. */
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import type { ProbeKind, ProbeResult } from '../../src/lock/probe.js';
import { interfaceProbes, withProbes } from '../../src/lock/probe-verdict.js';
import {
  type AgentReport,
  changedReport,
  driftReport,
  failureCodes,
  type InterfaceProbe,
  okReport,
  strictExitCode,
} from '../../src/lock/report.js';

const URL = 'https://agent.example/a2a/jsonrpc';
const probe = (recorded: ProbeKind | undefined, kind: ProbeKind, answered = 'HTTP 404 text/html'): InterfaceProbe => ({
  url: URL,
  protocolBinding: 'JSONRPC',
  protocolVersion: '1.0',
  ...(recorded ? { recorded } : {}),
  kind,
  answered,
});
const verdict = (report: AgentReport, p: InterfaceProbe, strict = false) => {
  const r = withProbes('research', report, [p], strict);
  return { ...r, exitCode: strictExitCode(r, strict) };
};

describe('withProbes', () => {
  it('a recorded served (or auth-required) interface not served now fails the agent: interface-not-served, exit 6', () => {
    for (const recorded of ['served', 'auth-required'] as const) {
      const r = verdict(okReport(), probe(recorded, 'not-served'));
      expect(r.status).toBe('error');
      expect(r.exitCode).toBe(ExitCode.NotServed);
      expect(r.error).toMatchObject({ code: 'interface-not-served' });
      expect(r.error?.message).toBe(
        `research: JSONRPC 1.0 at ${URL} is not served (answered: HTTP 404 text/html); the lockfile records it ${recorded}`,
      );
      expect(failureCodes(r)).toEqual(['interface-not-served']);
      expect(r.probes).toEqual([probe(recorded, 'not-served')]);
    }
    // A card change that leaves plans equal does not hide it.
    const changed = changedReport({ change: 'descriptive', cardChanges: [], warnings: [] });
    expect(verdict(changed, probe('served', 'not-served')).status).toBe('error');
  });

  it('a drifted agent keeps its drift (exit 1) and carries the interface not served as a warning', () => {
    const r = verdict(
      driftReport({ drift: [{ skill: 's', field: 'url' }], warnings: [] }),
      probe('served', 'not-served'),
    );
    expect(r.status).toBe('drift');
    expect(r.exitCode).toBe(ExitCode.Drift);
    expect(r.warnings.map((w) => w.code)).toEqual(['interface-not-served']);
  });

  it('not served where the lockfile records not-served or nothing: a warning, a failure (exit 6) under --strict', () => {
    for (const recorded of ['not-served', undefined] as const) {
      const warned = verdict(okReport(), probe(recorded, 'not-served'));
      expect(warned.status).toBe('ok');
      expect(warned.exitCode).toBe(ExitCode.Ok);
      expect(warned.warnings).toEqual([
        {
          code: 'interface-not-served',
          message: `JSONRPC 1.0 at ${URL} is not served (answered: HTTP 404 text/html); the lockfile ${recorded ? 'records it not-served' : 'records no probe for it'}`,
        },
      ]);
      const strict = verdict(okReport(), probe(recorded, 'not-served'), true);
      expect(strict.exitCode).toBe(ExitCode.NotServed);
      expect(strict.error?.code).toBe('interface-not-served');
    }
  });

  it('auth-required never passes for a recorded served (or nothing recorded): unchecked (interface-auth-required), exit 1 under --strict; as recorded it holds', () => {
    for (const recorded of ['served', undefined] as const) {
      const r = verdict(okReport(), probe(recorded, 'auth-required', 'HTTP 401'));
      expect(r).toMatchObject({ status: 'unchecked', reason: 'interface-auth-required', exitCode: ExitCode.Ok });
      expect(r.unchecked).toBe(`not proven served: JSONRPC 1.0 at ${URL} answered HTTP 401`);
      expect(verdict(okReport(), probe(recorded, 'auth-required'), true).exitCode).toBe(ExitCode.Drift);
    }
    const held = verdict(okReport(), probe('auth-required', 'auth-required'), true);
    expect(held).toMatchObject({ status: 'ok', exitCode: ExitCode.Ok });
  });

  it('a probe that was not sent checks nothing: unchecked (interface-not-probed) whatever is recorded, exit 1 under --strict, never interface-not-served', () => {
    const reason = 'the credential for scheme "oauth" could not be obtained: the token endpoint answered HTTP 500';
    const unsent = (recorded: ProbeKind | undefined): InterfaceProbe => ({
      url: URL,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      ...(recorded ? { recorded } : {}),
      kind: 'not-probed',
      reason,
    });
    for (const recorded of ['served', 'auth-required', 'not-served', undefined] as const) {
      const r = verdict(okReport(), unsent(recorded));
      expect(r).toMatchObject({ status: 'unchecked', reason: 'interface-not-probed', exitCode: ExitCode.Ok });
      expect(r.unchecked).toBe(`no probe sent to JSONRPC 1.0 at ${URL} (${reason})`);
      expect(r.warnings).toEqual([]);
      const strict = verdict(okReport(), unsent(recorded), true);
      expect(strict).toMatchObject({ status: 'unchecked', exitCode: ExitCode.Drift });
      expect(failureCodes(strict, true)).toEqual(['interface-not-probed']);
    }
    // Beside an authentication refusal: one unchecked line says both, the reason the one that checked nothing.
    const rest = { ...probe('served', 'auth-required', 'HTTP 401'), url: 'https://agent.example/a2a/rest' };
    const both = withProbes('research', okReport(), [unsent('served'), rest], false);
    expect(both.reason).toBe('interface-not-probed');
    expect(both.unchecked).toBe(
      `no probe sent to JSONRPC 1.0 at ${URL} (${reason}); not proven served: JSONRPC 1.0 at https://agent.example/a2a/rest answered HTTP 401`,
    );
  });

  it('served holds whatever was recorded; no probes leave the report as it was', () => {
    for (const recorded of ['served', 'auth-required', 'not-served', undefined] as const)
      expect(verdict(okReport(), probe(recorded, 'served'), true)).toMatchObject({ status: 'ok', exitCode: 0 });
    const report = okReport();
    expect(withProbes('research', report, [], true)).toBe(report);
  });
});

describe('interfaceProbes', () => {
  it('pairs each probed interface with the kind its key records (a probe not sent too); an interface a probe cannot ask is left out', () => {
    const rest = { url: 'https://agent.example/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' };
    const rpc = { url: URL, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: 't1' };
    const grpc = { url: 'agent.example:443', protocolBinding: 'GRPC', protocolVersion: '1.0' };
    const outcomes = new Map<string, ProbeResult>([
      [`JSONRPC 1.0 ${URL} tenant=t1`, { kind: 'served', answered: 'TaskNotFound' }],
      ['HTTP+JSON 1.0 https://agent.example/a2a/rest', { kind: 'not-served' }],
      ['GRPC 1.0 agent.example:443', { kind: 'not-probed', reason: 'the token endpoint did not answer in time' }],
    ]);
    expect(
      interfaceProbes([rpc, rest, grpc], outcomes, {
        [`JSONRPC 1.0 ${URL} tenant=t1`]: 'served',
        'GRPC 1.0 agent.example:443': 'served',
      }),
    ).toEqual([
      { ...rpc, recorded: 'served', kind: 'served', answered: 'TaskNotFound' },
      { ...rest, kind: 'not-served' },
      { ...grpc, recorded: 'served', kind: 'not-probed', reason: 'the token endpoint did not answer in time' },
    ]);
    expect(interfaceProbes([grpc], new Map(), undefined)).toEqual([]);
  });
});
