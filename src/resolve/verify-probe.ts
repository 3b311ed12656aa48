/**
 * `a2a verify --probe` for one agent: probe each of its locked interfaces (every plan's and every
 * locked fallback's, one GetTask each, with the credential its plan sends and none the review gate
 * withholds: `resolve/probe.ts`) and set the outcomes against what its lockfile records
 * (`lock/probe-verdict.ts`).
 */
import { unsetOriginAuth } from '../credentials.js';
import { type CredentialGate, withheldOriginAuth, withheldRoutes } from '../lock/base-gate.js';
import { credentialRoutes } from '../lock/credential-routes.js';
import { probedInterfaces } from '../lock/probe.js';
import { interfaceProbes, withProbes } from '../lock/probe-verdict.js';
import type { AgentReport } from '../lock/report.js';
import type { LockEntry } from '../lock/schema.js';
import type { AgentEntry, AgentSettings } from '../manifest/schema.js';
import { withOriginAuthLoaded } from './load-card.js';
import type { ResolveOptions } from './options.js';
import { probeLocked } from './probe.js';

/**
 * `report` with the probes of `name`'s locked interfaces applied. An agent whose check ended in an
 * `error` or `out-of-date` (its card unreachable, its entry not the manifest's) is not probed: its
 * report already fails. Under a review gate, a credential the base lockfile does not route to this
 * agent is sent to none of its interfaces (nor its `originAuth`): the probes go without.
 */
export async function verifyProbes(
  name: string,
  locked: { entry: LockEntry; settings: AgentSettings; agent: Pick<AgentEntry, 'card' | 'credentials'> | undefined },
  report: AgentReport,
  gate: CredentialGate | undefined,
  strict: boolean,
  options: ResolveOptions,
): Promise<AgentReport> {
  const { entry, settings, agent } = locked;
  if (report.status === 'error' || report.status === 'out-of-date' || !agent) return report;
  const withheld = gate ? gateWithholds(gate, entry, settings, agent.credentials ?? {}) : undefined;
  let network: ResolveOptions = withheld ? { ...options, credentialsWithheld: withheld } : options;
  // The platform credential goes with the probes only where the card check would send it.
  if (!withheld && entry.originAuth && Object.keys(entry.originAuth).length > 0)
    if (unsetOriginAuth(entry.originAuth, options) === undefined)
      network = await withOriginAuthLoaded(network, entry.originAuth);
  const outcomes = await probeLocked(
    entry,
    { card: agent.card, credentials: agent.credentials ?? {} },
    settings,
    network,
  );
  return withProbes(name, report, interfaceProbes(probedInterfaces(entry.plans), outcomes, entry.probe), strict);
}

/**
 * Why a review run sends the probes of this agent no credential: the base could not be read, or
 * its lockfile does not route a credential the plans (or `originAuth`) send; undefined when every
 * route is the base's.
 */
function gateWithholds(
  gate: CredentialGate,
  entry: LockEntry,
  settings: AgentSettings,
  credentials: AgentEntry['credentials'],
): string | undefined {
  if (gate.kind === 'unreadable') return "this run's review base could not be read";
  let routes: ReturnType<typeof credentialRoutes>;
  try {
    routes = credentialRoutes(entry, settings).filter((r) => r.purpose === 'plan');
  } catch {
    return 'the routes of this entry could not be read';
  }
  const withheld = [...withheldRoutes(gate, routes, credentials), ...withheldOriginAuth(gate, entry)];
  return withheld.length > 0
    ? 'the base lockfile does not route this credential to this agent (credential-route-new)'
    : undefined;
}
