/**
 * `a2a verify --probe`'s verdict (issue 37): what the probes of one locked agent's interfaces,
 * set against the outcome kinds its lockfile records (`probe`), make of its report. Values in,
 * values out; the probes are sent by the resolve shell.
 *
 * | recorded                | now `served` | now `auth-required`                    | now `not-served`                         |
 * |-------------------------|--------------|----------------------------------------|------------------------------------------|
 * | `served`                | holds        | `unchecked` (`interface-auth-required`) | fails: `interface-not-served` (exit 6)  |
 * | `auth-required`         | holds        | holds (as locked: alive, not proven)   | fails: `interface-not-served` (exit 6)   |
 * | `not-served`, none      | holds        | `unchecked` (`interface-auth-required`) | warning `interface-not-served`; fails under `--strict` |
 *
 * A probe that was not sent (`not-probed`: the credential its plan sends could not be obtained)
 * checked nothing: whatever is recorded, the agent is `unchecked` (`interface-not-probed`), never
 * failed as not served.
 *
 * An interface the lockfile records no outcome for (an older lockfile, `lock --no-probe`) is
 * probed all the same and its outcome shown (`recorded` absent).
 */
import type { Warning } from '../card/model.js';
import { InterfaceNotServedError } from '../errors.js';
import { interfaceKey, type ProbedInterface, type ProbeKind, type ProbeResult } from './probe.js';
import { type AgentReport, errorReport, type InterfaceProbe, withUnchecked } from './report.js';

/** The probes of one agent, in the order of its interfaces, each beside the kind `recorded` (the entry's `probe` field) holds for it. */
export function interfaceProbes(
  interfaces: readonly ProbedInterface[],
  outcomes: ReadonlyMap<string, ProbeResult>,
  recorded: Readonly<Record<string, ProbeKind>> | undefined,
): InterfaceProbe[] {
  return interfaces.flatMap((iface) => {
    const key = interfaceKey(iface);
    const outcome = outcomes.get(key);
    if (!outcome) return [];
    const locked = recorded && Object.hasOwn(recorded, key) ? recorded[key] : undefined;
    return [
      {
        url: iface.url,
        protocolBinding: iface.protocolBinding,
        protocolVersion: iface.protocolVersion,
        ...(iface.tenant ? { tenant: iface.tenant } : {}),
        ...(locked ? { recorded: locked } : {}),
        ...(outcome.kind === 'not-probed'
          ? { kind: outcome.kind, reason: outcome.reason }
          : { kind: outcome.kind, ...(outcome.answered !== undefined ? { answered: outcome.answered } : {}) }),
      },
    ];
  });
}

/** `JSONRPC 1.0 at http://…`: how a line names an interface. */
function named(p: InterfaceProbe): string {
  return `${p.protocolBinding} ${p.protocolVersion} at ${p.url}${p.tenant ? ` (tenant ${p.tenant})` : ''}`;
}

/** A locked `served` or `auth-required` interface that answers `not-served` now: the lockfile's promise is broken. */
function broken(p: InterfaceProbe): boolean {
  return p.kind === 'not-served' && (p.recorded === 'served' || p.recorded === 'auth-required');
}

/**
 * `report` (an agent's verify report) with its probes applied (see the module table): a broken
 * promise is an `error` report with code `interface-not-served` (exit 6); a `drift` or
 * `out-of-date` report keeps its status and carries it as a warning; `strict` (`--strict`) also
 * fails an interface not served that the lockfile did not record as served. `probes` is set on
 * the report. Pure.
 */
export function withProbes(agent: string, report: AgentReport, probes: InterfaceProbe[], strict: boolean): AgentReport {
  if (probes.length === 0) return report;
  const warnings: Warning[] = [];
  const failing = probes.filter((p) => broken(p) || (strict && p.kind === 'not-served'));
  for (const p of probes)
    if (p.kind === 'not-served' && !failing.includes(p))
      warnings.push({
        code: 'interface-not-served',
        message: `${named(p)} is not served (answered: ${p.answered ?? 'nothing'}); the lockfile ${p.recorded ? `records it ${p.recorded}` : 'records no probe for it'}`,
      });
  const first = failing[0];
  if (first && (report.status === 'ok' || report.status === 'changed' || report.status === 'unchecked')) {
    const error = new InterfaceNotServedError(agent, iface(first), first.recorded, first.answered ?? 'nothing');
    const more = failing.slice(1).map((p) => ({
      code: 'interface-not-served',
      message: `${named(p)} is not served either (answered: ${p.answered ?? 'nothing'})`,
    }));
    return { ...errorReport(error, [...report.warnings, ...warnings, ...more]), probes };
  }
  for (const p of failing)
    warnings.push({
      code: 'interface-not-served',
      message: `${named(p)} is not served (answered: ${p.answered ?? 'nothing'})`,
    });
  // Alive, not proven: a locked `served` (or unrecorded) interface refused without the credential (withheld, unset, refused).
  const unproven = probes.filter((p) => p.kind === 'auth-required' && p.recorded !== 'auth-required');
  // Never asked: the probe was not sent (its credential could not be obtained).
  const unasked = probes.filter((p) => p.kind === 'not-probed');
  const probed = { ...report, warnings: [...report.warnings, ...warnings], probes };
  if ((unproven.length === 0 && unasked.length === 0) || report.unchecked !== undefined) return probed;
  const parts = [
    ...notSent(unasked),
    ...(unproven.length > 0
      ? [
          `not proven served: ${unproven.map((p) => `${named(p)} answered ${p.answered ?? 'an authentication refusal'}`).join('; ')}`,
        ]
      : []),
  ];
  return withUnchecked(probed, {
    reason: unasked.length > 0 ? 'interface-not-probed' : 'interface-auth-required',
    message: parts.join('; '),
  });
}

/** `no probe sent to A, B (why)`: the probes not sent, one part per reason. */
function notSent(unasked: readonly InterfaceProbe[]): string[] {
  const byReason = new Map<string, string[]>();
  for (const p of unasked) byReason.set(p.reason ?? '', [...(byReason.get(p.reason ?? '') ?? []), named(p)]);
  return [...byReason].map(([reason, names]) => `no probe sent to ${names.join(', ')}${reason ? ` (${reason})` : ''}`);
}

function iface(p: InterfaceProbe): { url: string; binding: string; version: string } {
  return { url: p.url, binding: p.protocolBinding, version: p.protocolVersion };
}
