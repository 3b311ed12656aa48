/**
 * The per-agent manifest settings as `a2a add` and `a2a update` take them on the command line, and
 * the one parser of their values: each flag's value is read into the manifest's own shape and
 * validated by the manifest's zod schema (`schema.ts`), so a flag accepts exactly what `a2a.json`
 * accepts. A bad value is a `UsageError` (exit 2) naming the flag; the value itself is not echoed
 * (a secret pasted where a variable name goes must not reach a log). Pure.
 */
import { UsageError } from '../errors.js';
import { type Format, parseFormat, zodMessage } from '../json-document.js';
import { formatPath } from '../json-path.js';
import { type CredentialSource, manifestSchemas, type OriginAuth } from './schema.js';

/** The flags as given (strings as typed; booleans set only when given). */
export interface AgentFlags {
  /** `--credential <scheme>=<ENV>` or `<scheme>=oauth:<ID_ENV>:<SECRET_ENV>[:basic|form]`, repeatable. */
  credential?: readonly string[];
  /** `--origin-auth <origin>=bearer:<ENV> | header:<NAME>:<ENV>[:<PREFIX>] | aws:<REGION>:<SERVICE>`, repeatable. */
  originAuth?: readonly string[];
  /** `--rebase-interfaces` (true) or `--no-rebase-interfaces` (false: the key is removed). */
  rebaseInterfaces?: boolean;
  /** `--allow-http`: the agent's `allowHttp`. */
  allowHttp?: boolean;
  /** `--card-path <path>`. */
  cardPath?: string;
  /** `--range <semver range>`: the agent's `version`. */
  range?: string;
}

/** What the flags set, in the manifest's shape: the agent's keys, and the top-level `originAuth` entries. */
export interface AgentEdit {
  credentials: Record<string, CredentialSource>;
  originAuth: Record<string, OriginAuth>;
  /** Keys of the agent entry to set (a value) or to remove (`undefined`). */
  entry: Partial<Record<'rebaseInterfaces' | 'allowHttp' | 'cardPath' | 'version', unknown>>;
}

/** `value` validated by `schema`, or a one-line UsageError naming `flag` (and `what`, never the value). */
function checked<T>(flag: string, what: string, value: unknown, schema: Format<T>, form: string): T {
  const parsed = parseFormat(schema, value);
  if ('data' in parsed) return parsed.data;
  const at = parsed.issue.path.length ? ` (${formatPath(parsed.issue.path)})` : '';
  throw new UsageError(`${flag} ${what}: ${zodMessage(parsed.issue, { showValues: false })}${at}; use ${form}`);
}

/** `name=rest` split at the first `=`, or a UsageError naming the flag and its form. */
function split(flag: string, spec: string, form: string): [string, string] {
  const at = spec.indexOf('=');
  if (at <= 0) throw new UsageError(`${flag}: expected ${form}`);
  return [spec.slice(0, at), spec.slice(at + 1)];
}

const CREDENTIAL_FORM = '<scheme>=<ENV_VAR> or <scheme>=oauth:<ID_ENV>:<SECRET_ENV>, e.g. bearer=RESEARCH_TOKEN';
const ORIGIN_AUTH_FORM =
  '<origin>=bearer:<ENV> | header:<NAME>:<ENV>[:<PREFIX>] | aws:<REGION>:<SERVICE>, e.g. https://svc.a.run.app=bearer:ID_TOKEN';

/** One `--credential` value as a manifest credential source. */
function credentialSource(value: string): unknown {
  const oauth = /^oauth:([^:]*):([^:]*)(?::(.*))?$/.exec(value);
  if (!oauth) return { env: value };
  const [, clientId, clientSecret, clientAuth] = oauth;
  return {
    oauth: {
      clientId: { env: clientId },
      clientSecret: { env: clientSecret },
      ...(clientAuth !== undefined ? { clientAuth } : {}),
    },
  };
}

/** One `--origin-auth` placement as the manifest's `originAuth` value. */
function originAuthValue(value: string): unknown {
  const [kind, ...parts] = value.split(':');
  if (kind === 'bearer' && parts.length === 1) return { bearer: { env: parts[0] } };
  if (kind === 'header' && parts.length >= 2) {
    // The prefix may hold a colon of its own ("Bearer " does not; a custom one might).
    const [name, env, ...prefix] = parts;
    return { header: { name, env, ...(prefix.length ? { prefix: prefix.join(':') } : {}) } };
  }
  if (kind === 'aws' && parts.length === 2) return { awsSigV4: { region: parts[0], service: parts[1] } };
  return { [kind ?? '']: parts };
}

/**
 * The manifest edit the flags ask for, each value validated by the manifest's schema.
 * @throws UsageError (exit 2) a value the manifest would not accept, naming the flag
 */
export function parseAgentFlags(flags: AgentFlags): AgentEdit {
  const s = manifestSchemas();
  const edit: AgentEdit = { credentials: {}, originAuth: {}, entry: {} };
  for (const spec of flags.credential ?? []) {
    const [scheme, value] = split('--credential', spec, CREDENTIAL_FORM);
    edit.credentials[scheme] = checked(
      '--credential',
      `for "${scheme}"`,
      credentialSource(value),
      () => s.CredentialSourceSchema,
      CREDENTIAL_FORM,
    );
  }
  for (const spec of flags.originAuth ?? []) {
    const [written, value] = split('--origin-auth', spec, ORIGIN_AUTH_FORM);
    // An origin as a URL parser prints it (https://Host/ is https://host).
    const origin = /^https?:\/\/[^/?#]+\/?$/i.test(written) ? written.replace(/\/$/, '').toLowerCase() : written;
    checked('--origin-auth', `origin "${written}"`, origin, () => s.OriginSchema, ORIGIN_AUTH_FORM);
    edit.originAuth[origin] = checked(
      '--origin-auth',
      `for ${origin}`,
      originAuthValue(value),
      () => s.OriginAuthSchema,
      ORIGIN_AUTH_FORM,
    );
  }
  if (flags.rebaseInterfaces !== undefined) edit.entry.rebaseInterfaces = flags.rebaseInterfaces ? true : undefined;
  if (flags.allowHttp) edit.entry.allowHttp = true;
  if (flags.cardPath !== undefined)
    edit.entry.cardPath = checked(
      '--card-path',
      `"${flags.cardPath}"`,
      flags.cardPath,
      () => s.CardPathSchema,
      'a path',
    );
  if (flags.range !== undefined) {
    const version = s.AgentEntrySchema.shape.version;
    edit.entry.version = checked(
      '--range',
      `"${flags.range}"`,
      flags.range,
      () => version,
      'a semver range, e.g. ^2.4.0',
    );
  }
  return edit;
}

/** Whether the flags change anything in the manifest. */
export function editsManifest(edit: AgentEdit): boolean {
  return (
    Object.keys(edit.credentials).length > 0 ||
    Object.keys(edit.originAuth).length > 0 ||
    Object.keys(edit.entry).length > 0
  );
}

/** A manifest as written (no defaults filled in): only the parts an edit touches are typed. */
export interface WrittenManifest {
  agents?: Record<string, Record<string, unknown>>;
  originAuth?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * `written` with the agent `name` set to `entry` with `edit` applied (its credentials merged over the
 * entry's, its keys set or removed in place, new keys last) and `edit.originAuth` merged over the
 * top-level `originAuth`. Every other key keeps its place. `sorted`: the agents in name order (`a2a add`).
 */
export function applyAgentEdit(
  written: WrittenManifest,
  name: string,
  entry: Record<string, unknown>,
  edit: AgentEdit,
  sorted = false,
): WrittenManifest {
  const next: Record<string, unknown> = { ...entry };
  if (Object.keys(edit.credentials).length)
    next.credentials = { ...((entry.credentials as Record<string, unknown> | undefined) ?? {}), ...edit.credentials };
  for (const [key, value] of Object.entries(edit.entry)) {
    if (value === undefined) delete next[key];
    else next[key] = value;
  }
  const agents = { ...(written.agents ?? {}), [name]: next };
  const ordered = sorted
    ? Object.fromEntries(Object.entries(agents).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : agents;
  return {
    ...written,
    agents: ordered,
    ...(Object.keys(edit.originAuth).length
      ? { originAuth: { ...(written.originAuth ?? {}), ...edit.originAuth } }
      : {}),
  };
}
