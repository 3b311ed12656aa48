/**
 * `--format sarif` of `a2a diff` and `a2a verify`: a SARIF 2.1.0 log for GitHub code scanning
 * (docs/guide/code-scanning.md). One run: the tool with one rule per code that can appear (a risk
 * code of `diff`, a failure code of `verify`), one result per finding (a risk of an agent or a
 * skill; a failing agent), each at a physical location with a region (a result without one fails
 * the whole upload), fingerprinted by agent, skill and code (never the line, so an alert survives
 * lines moving), `automationDetails.id` naming the command and the manifest (a `/` in it makes it
 * GitHub's category, so diff and verify uploads keep apart), at most {@link SARIF_MAX_RESULTS}
 * results, highest level first. Pure: the report's data in, the log out.
 *
 * Every text from a card, an agent or a file is JSON-escaped by `JSON.stringify` and bounded
 * ({@link SARIF_TEXT_LIMIT}); the CLI's data also comes `untrusted` (`./common.ts`), its controls as `\u` text.
 * A result's message, which carries card and pull request text, is a literal plain text message
 * ({@link sarifMessageText}): no embedded link, no placeholder.
 */
import { createHash } from 'node:crypto';
import type { DiffData } from '../../commands/diff.js';
import { diffAgents } from '../../commands/diff.js';
import type { AgentFile, AgentFiles } from '../../commands/locate.js';
import type { VerifyData } from '../../commands/verify.js';
import { ErrorCode } from '../../errors.js';
import type { VerifyFailureCode } from '../../lock/report.js';
import { RISK_CODES, type RiskCode, type RiskLevel } from '../../lock/risk-codes.js';
import { bounded } from '../../untrusted.js';
import { verifyFailureAt, verifyFailures } from '../github.js';
import type { CommandRenderer } from './common.js';

/** Most results a run holds: GitHub keeps the top 5,000 by severity of a run's results. */
export const SARIF_MAX_RESULTS = 5_000;

/** Most characters (code points) of a result's message or any other text taken from a card, an agent or a file. */
export const SARIF_TEXT_LIMIT = 1_000;

/** The schema a log names (OASIS SARIF 2.1.0, errata 01). */
export const SARIF_SCHEMA =
  'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

/** A SARIF result's level. */
export type SarifLevel = 'error' | 'warning' | 'note';

/** One rule: a code, its default level, its `security-severity` band (none: not a security finding), and what it means. */
export interface SarifRuleSpec {
  id: string;
  level: SarifLevel;
  severity?: Exclude<RiskLevel, 'info'>;
  /** What the code means, one or two sentences (the rule's description and help). */
  text: string;
}

/** One finding: the rule, its level in this run, the message, whose it is, and where. */
export interface SarifFinding {
  ruleId: string;
  level: SarifLevel;
  message: string;
  agent: string;
  skill?: string;
  /** The file from the repository root (`/` separated). */
  path: string;
  /** 1-based; 1 when the agent is not in the file. */
  line: number;
  /** Passed over by `--ignore`: written with a SARIF suppression (code scanning keeps it closed). */
  ignored?: boolean;
}

/** The tool that wrote the log: this package's name and version (`src/version.ts`), its home page when known. */
export interface SarifTool {
  name: string;
  version: string;
  informationUri?: string;
}

/** Everything one run is built from. */
export interface SarifRunSpec {
  tool: SarifTool;
  /** The command (`diff` or `verify`) and the manifest's path from the repository root: the run's category. */
  command: 'diff' | 'verify';
  manifest: string;
  /** Where the codes are explained, as a repository path (named in each rule's help). */
  reference: string;
  rules: SarifRuleSpec[];
  findings: SarifFinding[];
}

/** A SARIF 2.1.0 log (the parts this module writes). */
export interface SarifLog {
  $schema: string;
  version: '2.1.0';
  runs: [Record<string, unknown>];
}

/** `security-severity` of a band, as GitHub reads it (a number in a string): high 8.0, medium 5.0, low 3.0. */
const SECURITY_SEVERITY = { high: '8.0', medium: '5.0', low: '3.0' } as const;

const LEVEL_RANK: Record<SarifLevel, number> = { error: 0, warning: 1, note: 2 };

/** The SARIF level of a risk level: high an error, medium a warning, low and info a note. */
export function sarifLevel(level: RiskLevel): SarifLevel {
  return level === 'high' ? 'error' : level === 'medium' ? 'warning' : 'note';
}

/**
 * `text` as a SARIF plain text message that says it literally (SARIF 2.1.0 §3.11): `\`, `[` and `]`
 * escaped with a backslash (§3.11.6), so that no card or pull request text reads as an embedded link
 * (`[Approved by security](https://…)`); `{` and `}` doubled (§3.11.5), so that none reads as a
 * placeholder (`{0}`). At most `max` code points: cut between two escaped characters, never inside
 * one, with `…` last. The one escaper of the text a result's message carries.
 */
export function sarifMessageText(text: string, max: number = SARIF_TEXT_LIMIT): string {
  let out = '';
  let count = 0;
  // The length of `out` when it last held at most max - 1 code points: where a cut text ends, before `…`.
  let fits = 0;
  for (const point of text) {
    const unit =
      point === '\\' || point === '[' || point === ']'
        ? `\\${point}`
        : point === '{' || point === '}'
          ? point + point
          : point;
    const size = unit === point ? 1 : 2;
    if (count + size > max) return `${out.slice(0, fits)}…`;
    out += unit;
    count += size;
    if (count <= max - 1) fits = out.length;
  }
  return out;
}

/** A repository path as a relative URI reference: each segment percent-encoded (a space, a `%`, a `#`). */
function uriOf(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** The fingerprint of a finding: sha256 over agent, skill, code and its occurrence among equal ones; never the line. */
function fingerprint(agent: string, skill: string | undefined, code: string, occurrence: number): string {
  return createHash('sha256')
    .update(JSON.stringify([agent, skill ?? null, code, occurrence]))
    .digest('hex');
}

/**
 * The log of one run: rules in the order given, results ordered by level (error, warning, note;
 * stable), at most {@link SARIF_MAX_RESULTS} of them, the run's `properties` counting the results
 * found and left out (and a notification saying so when any was).
 */
export function sarifLog(spec: SarifRunSpec): SarifLog {
  const index = new Map(spec.rules.map((r, i) => [r.id, i]));
  const seen = new Map<string, number>();
  const all = spec.findings.map((f) => {
    const key = JSON.stringify([f.agent, f.skill ?? null, f.ruleId]);
    const occurrence = seen.get(key) ?? 0;
    seen.set(key, occurrence + 1);
    return { f, print: fingerprint(f.agent, f.skill, f.ruleId, occurrence) };
  });
  const ordered = all
    .map((x, i) => ({ ...x, i }))
    // Ignored findings last: past the cap, those go first.
    .sort(
      (a, b) =>
        Number(a.f.ignored ?? false) - Number(b.f.ignored ?? false) ||
        LEVEL_RANK[a.f.level] - LEVEL_RANK[b.f.level] ||
        a.i - b.i,
    );
  const kept = ordered.slice(0, SARIF_MAX_RESULTS);
  const omitted = ordered.length - kept.length;
  const results = kept.map(({ f, print }) => ({
    ruleId: f.ruleId,
    ...(index.has(f.ruleId) ? { ruleIndex: index.get(f.ruleId)! } : {}),
    level: f.level,
    message: { text: sarifMessageText(f.message) },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: uriOf(f.path) },
          region: { startLine: Math.max(1, Math.floor(f.line)) },
        },
      },
    ],
    partialFingerprints: { primaryLocationLineHash: print },
    ...(f.ignored
      ? { suppressions: [{ kind: 'external', justification: `--ignore ${bounded(f.ruleId, SARIF_TEXT_LIMIT)}` }] }
      : {}),
    properties: {
      agent: bounded(f.agent, SARIF_TEXT_LIMIT),
      ...(f.skill !== undefined ? { skill: bounded(f.skill, SARIF_TEXT_LIMIT) } : {}),
    },
  }));
  const rules = spec.rules.map((r) => ({
    id: r.id,
    shortDescription: { text: r.text.replace(/\.(\s.*)?$/s, '') },
    fullDescription: { text: r.text },
    help: { text: `${r.text} See ${spec.reference} (${r.id}).` },
    defaultConfiguration: { level: r.level },
    properties: {
      ...(r.severity ? { tags: ['security'], 'security-severity': SECURITY_SEVERITY[r.severity] } : {}),
      precision: 'very-high',
    },
  }));
  const notifications =
    omitted > 0
      ? [
          {
            level: 'warning',
            message: {
              text: `${omitted} of ${ordered.length} results left out: a run holds at most ${SARIF_MAX_RESULTS} (highest level first); run a2a ${spec.command} to see all`,
            },
          },
        ]
      : [];
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: spec.tool.name,
            version: spec.tool.version,
            ...(spec.tool.informationUri ? { informationUri: spec.tool.informationUri } : {}),
            rules,
          },
        },
        automationDetails: { id: `a2a-lock/${spec.command}/${spec.manifest}/` },
        invocations: [
          {
            executionSuccessful: true,
            ...(notifications.length ? { toolExecutionNotifications: notifications } : {}),
          },
        ],
        results,
        properties: { results: ordered.length, resultsOmitted: omitted },
      },
    ],
  };
}

/**
 * What each risk code means (its level is {@link RISK_CODES}'; docs/reference/risk-codes.md says
 * the same at length). Keyed by every risk code, so a new code needs its text here.
 */
export const RISK_CODE_TEXT: Record<RiskCode, string> = {
  'new-credential-destination':
    'A credential goes where it did not go at base for this agent: a new origin, scheme or placement (a new agent holding credentials, a moved credentialed plan or extended card route, a moved OAuth tokenUrl).',
  'scheme-redefined':
    'A security scheme keeps its name but changes type or placement (header to query, bearer to apiKey).',
  'cleartext-transport':
    'A plan URL, a fallback or the push endpoint is plain http to a host other than this machine, and was not at base.',
  'signature-weakened': 'A verified card signature became unverifiable or absent.',
  'signer-changed': 'The card signature is verified by a key with another thumbprint than at base.',
  'credential-source-changed':
    'The manifest names another secret for a credential: high when the same destination now gets another secret, medium when the source is new, low when it is removed.',
  'credential-policy-changed':
    "The manifest's credentialDestinations (the only origins a credential may go to) was added, removed or changed.",
  'origin-changed': "A plan URL's origin changed (no credential involved).",
  'scopes-widened': 'A locked plan asks a security scheme for more OAuth scopes.',
  'protocol-downgrade': "A plan's A2A protocol version went down.",
  'extension-activated': 'The client will now send an extension it did not send at base.',
  'required-extension-added': 'The card now requires an extension.',
  'delivery-changed': "A plan's delivery (blocking, streaming, push) changed.",
  'output-modes-changed': "A plan's accepted output modes changed.",
  'card-version-rollback': "The card's version is lower than at base (a rollback of a signed card shows only here).",
  'push-endpoint-changed':
    'The push endpoint (where agents deliver results) goes to another origin than at base, or is set where it was not; high when it becomes plain http.',
  'skill-added': 'A skill is locked that was not at base.',
  'skill-removed': 'A skill is no longer locked.',
  'fallbacks-changed': "A plan's locked fallbacks changed.",
  'card-structural':
    'Another structural card change, or a plan URL, binding or tenant on the same origin: review it in a2a diff.',
  descriptive: 'Descriptive card changes only (names, descriptions, examples).',
  'interface-other-origin':
    "A plan or a fallback now calls another origin than the card's: legitimate (a gRPC host, a gateway), but the calls and any credential go there.",
  'host-international':
    'A URL new at head whose host is written otherwise than it is contacted (punycode, ideographic dots, percent-escapes): both spellings are named.',
  'agent-added': 'An agent was added to the lockfile.',
  'agent-removed': 'An agent was removed from the lockfile.',
};

/** The rules of `diff`: one per risk code, at its level, with `security-severity` for high, medium and low. */
export function diffRules(): SarifRuleSpec[] {
  return (Object.keys(RISK_CODES) as RiskCode[]).map((id) => {
    const level: RiskLevel = RISK_CODES[id];
    return { id, level: sarifLevel(level), ...(level !== 'info' ? { severity: level } : {}), text: RISK_CODE_TEXT[id] };
  });
}

/** A risk about the manifest rather than the lockfile: a credential's source (`a2a.json`'s `credentials`). */
const MANIFEST_RISKS: ReadonlySet<RiskCode> = new Set(['credential-source-changed']);

/** A file's line of `agent`, 1 when it is not there (a removed agent). */
function lineOf(file: AgentFile, agent: string): number {
  return Object.hasOwn(file.lines, agent) ? file.lines[agent]! : 1;
}

/** The files of a run's data; without them (not asked to locate), the file names alone, at line 1. */
function filesOf(files: AgentFiles | undefined, lockfile: string, manifest: string): AgentFiles {
  return (
    files ?? {
      lockfile: { path: lockfile.split(/[\\/]/).pop()!, lines: {} },
      manifest: { path: manifest, lines: {} },
    }
  );
}

/**
 * The SARIF log of `a2a diff`: one result per risk of each agent (or skill), at the agent's line of
 * the head lockfile (of the head manifest for a credential's source; line 1 for an agent gone).
 */
export function diffSarif(data: DiffData, tool: SarifTool): SarifLog {
  const files = filesOf(data.human.files, data.human.lockfile, data.human.manifest);
  const findings: SarifFinding[] = diffAgents(data).flatMap((a) =>
    a.risks.map((r) => {
      const file = MANIFEST_RISKS.has(r.code) ? files.manifest : files.lockfile;
      return {
        ruleId: r.code,
        level: sarifLevel(r.level),
        message: `${a.name}${r.skill !== undefined ? ` › ${r.skill}` : ''}: ${r.message}`,
        agent: a.name,
        ...(r.skill !== undefined ? { skill: r.skill } : {}),
        path: file.path,
        line: lineOf(file, a.name),
        ...(r.ignored ? { ignored: true } : {}),
      };
    }),
  );
  return sarifLog({
    tool,
    command: 'diff',
    manifest: files.manifest.path,
    reference: 'docs/reference/risk-codes.md',
    rules: diffRules(),
    findings,
  });
}

/**
 * What each failure code of `verify` means ({@link VERIFY_FAILURE_CODES}: its statuses, the reasons
 * a part is left unchecked, the errors an agent's check can end in), and the two codes it fails with
 * that `--ignore` never takes. Keyed by every code, so a new failure code needs its rule here.
 * `severity`: a finding about what the lockfile guards (plans, signatures, transport).
 */
const VERIFY_RULE_TEXT: Record<
  VerifyFailureCode | typeof ErrorCode.LockfileInvalid | typeof ErrorCode.Refusal,
  Omit<SarifRuleSpec, 'id'>
> = {
  drift: {
    level: 'error',
    severity: 'high',
    text: 'The card served now goes beyond a locked plan or a locked signature (beyond the lockfile): review it, then a2a update <agent>.',
  },
  'out-of-date': {
    level: 'error',
    text: 'The lockfile does not match the manifest (an agent added, removed or changed in a2a.json): run a2a lock.',
  },
  changed: {
    level: 'warning',
    text: 'The card served now changed but leaves every locked plan equal: fails under --strict; a2a update <agent> records it.',
  },
  'credential-unset': {
    level: 'warning',
    text: 'A credential variable is not set, so the card served now (behind originAuth) or the extended card was not read: the agent is unchecked, never ok (fails under --strict).',
  },
  'credential-route-new': {
    level: 'warning',
    text: 'With a review base: the credential would go along a route the base lockfile did not have for this agent, so none was sent; it is checked with credentials once the change is merged (review it in a2a diff).',
  },
  'extended-changed': {
    level: 'warning',
    text: "With a review base: the lockfile's extended card snapshot is not the base's and the extended card could not be fetched now.",
  },
  'base-unreadable': {
    level: 'warning',
    text: "The run's review base could not be read (a shallow clone, not an ancestor of HEAD), so no credential was sent to any agent.",
  },
  'interface-auth-required': {
    level: 'warning',
    text: 'verify --probe: a locked interface answered its probe with an authentication refusal: alive, not proven served; the agent is unchecked, never ok (fails under --strict).',
  },
  'interface-not-probed': {
    level: 'warning',
    text: 'verify --probe: the probe of a locked interface was not sent (the credential its plan sends could not be obtained, such as an OAuth token endpoint that failed): the interface was not checked; the agent is unchecked, never ok (fails under --strict).',
  },
  [ErrorCode.Unreachable]: {
    level: 'error',
    text: 'The agent could not be verified: it could not be reached (DNS, connection refused or reset, 404 or another 4xx, 5xx, too many redirects).',
  },
  [ErrorCode.AuthRefused]: { level: 'error', text: 'The agent could not be verified: it answered 401 or 403.' },
  [ErrorCode.Timeout]: {
    level: 'error',
    text: 'The agent could not be verified: its card did not arrive within the timeout.',
  },
  [ErrorCode.CardInvalid]: {
    level: 'error',
    text: 'The agent could not be verified: its card is not JSON, not an agent card, or fails validation.',
  },
  [ErrorCode.InsecureUrl]: {
    level: 'error',
    severity: 'high',
    text: 'The agent could not be verified: its card URL is not allowed (plain http to a host other than this machine, an https to http redirect).',
  },
  [ErrorCode.SignatureRequired]: {
    level: 'error',
    severity: 'high',
    text: "The agent could not be verified: the manifest sets requireSignature and the card's signature is absent or does not verify.",
  },
  [ErrorCode.InterfaceNotServed]: {
    level: 'error',
    text: 'verify --probe: a locked interface answered its probe (one GetTask for a task id that cannot exist) with something that is not A2A of its binding and version: the card names an interface its server does not speak.',
  },
  [ErrorCode.LockfileInvalid]: {
    level: 'error',
    text: 'The agent could not be verified: its lock entry or a snapshot fails its integrity check.',
  },
  [ErrorCode.Refusal]: {
    level: 'error',
    text: 'The agent could not be verified: negotiation found no viable plan.',
  },
};

/** The rules of every code of {@link VERIFY_RULE_TEXT}, in its order. */
const VERIFY_RULES: SarifRuleSpec[] = Object.entries(VERIFY_RULE_TEXT).map(([id, rule]) => ({ id, ...rule }));

/** The rules of `verify`: {@link VERIFY_RULES}, and one for any other error code found in this run. */
function verifyRules(codes: Iterable<string>): SarifRuleSpec[] {
  const rules = [...VERIFY_RULES];
  for (const id of codes)
    if (!rules.some((r) => r.id === id))
      rules.push({ id, level: 'error', text: `An agent failed a2a verify with code ${id}.` });
  return rules;
}

/**
 * The SARIF log of `a2a verify`: one result per failing agent ({@link verifyFailures}: the same as
 * its annotations), at the agent's line of the lockfile, or of the manifest for an agent the
 * lockfile lacks (line 1 when in neither).
 */
export function verifySarif(data: VerifyData, tool: SarifTool): SarifLog {
  const files = filesOf(data.human.files, data.human.lockfile, data.human.manifest);
  const failures = verifyFailures(data.agents);
  const findings: SarifFinding[] = failures.map((f) => {
    const at = verifyFailureAt(files, f.agent);
    return {
      ruleId: f.code,
      level: f.level,
      message: `${f.title}: ${f.message}`,
      agent: f.agent,
      path: files[at.file].path,
      line: at.line ?? 1,
    };
  });
  return sarifLog({
    tool,
    command: 'verify',
    manifest: files.manifest.path,
    reference: 'docs/reference/commands/verify.md',
    rules: verifyRules(failures.map((f) => f.code)),
    findings,
  });
}

/**
 * The renderer of `--format sarif`: the log on stdout, pretty-printed, one line per JSON line (the
 * CLI's line filter then leaves it valid JSON: it escapes only what JSON may hold raw, as `\u`
 * escapes). No annotations on stdout (the command prints them on stderr).
 */
export function sarifRenderer<D>(build: (data: D) => SarifLog): CommandRenderer<D> {
  return {
    json: build,
    text: (data) => JSON.stringify(build(data), null, 2).split('\n'),
  };
}
