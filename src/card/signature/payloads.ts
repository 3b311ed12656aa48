/**
 * The candidate signing payloads of an Agent Card: what a signer may have signed, as text whose
 * UTF-8 bytes the detached JWS covers (A2A 1.0 §8.4.1, RFC 8785). Three forms, distinct and in
 * order: `jcs` (the card as served minus `signatures`), `spec` (the card projected onto the 1.0
 * proto AgentCard with proto field-presence rules) and `sdk` (that projection cleaned as
 * `@a2a-js/sdk` 1.3.0 does). The proto field-presence tables of the 1.0 AgentCard and the messages
 * it contains live here. See `verify.ts` for why there are three. Pure.
 */
import { canonicalJson } from '../../canonical.js';
import { formatPath, isRecord } from '../../json-path.js';

/**
 * Which canonicalisation a candidate payload comes from (see the `verify.ts` module comment).
 * `a2a-python-1.1` is a known NON-conformant form: what `a2a-sdk` (Python) up to 1.1.x signed.
 */
export type PayloadForm = 'jcs' | 'spec' | 'sdk' | 'a2a-python-1.1';

/** One candidate signing payload. */
export interface SigningPayload {
  form: PayloadForm;
  /** The payload text; its UTF-8 bytes are what the JWS signs. */
  text: string;
}

/**
 * The candidate signing payloads of a card (the card without `signatures`, as text whose UTF-8
 * bytes are signed), distinct and in order: RFC 8785 of the card as served; the A2A 1.0 §8.4.1
 * proto-presence form; the `@a2a-js/sdk` 1.3.0 form. See the module comment. Exported for tests.
 * @internal
 */
export function signingPayloads(card: Record<string, unknown>): string[] {
  return signingPayloadForms(card).map((payload) => payload.text);
}

/** {@link signingPayloads} with the form each candidate came from; duplicates keep the first form. */
export function signingPayloadForms(card: Record<string, unknown>): SigningPayload[] {
  const { signatures: _signatures, ...unsigned } = card;
  const projected = projectMessage(AGENT_CARD, card, [], []);
  const candidates: Array<{ form: PayloadForm; text: string | undefined }> = [
    { form: 'jcs', text: rfc8785(unsigned) },
    { form: 'spec', text: rfc8785(projected) },
    { form: 'sdk', text: rfc8785(dropEmpty(projected) ?? {}) },
    { form: 'a2a-python-1.1', text: pythonLegacyJson(dropEmpty(projected) ?? {}) },
  ];
  const seen = new Set<string>();
  return candidates.filter((candidate): candidate is SigningPayload => {
    if (candidate.text === undefined || seen.has(candidate.text)) return false;
    seen.add(candidate.text);
    return true;
  });
}

/**
 * The RFC 8785 (JCS) text of a JSON value: keys sorted by UTF-16 code unit, ECMAScript number and
 * string forms (non-ASCII as literal UTF-8). `undefined` when the value has none: a string or key
 * holding an unpaired UTF-16 surrogate (no well-formed UTF-8), or a non-finite number. The
 * a2a-tck conformance vectors (test/fixtures/tck) hold it to the standard.
 * @internal
 */
export function rfc8785(value: unknown): string | undefined {
  return hasNoJcsForm(value, 0) ? undefined : canonicalJson(value);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A lone surrogate or a non-finite number anywhere in `value` (bounded depth: a card is bounded anyway). */
function hasNoJcsForm(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (typeof value === 'number') return !Number.isFinite(value);
  if (typeof value !== 'object' || value === null || depth > 200) return false;
  if (Array.isArray(value)) return value.some((item) => hasNoJcsForm(item, depth + 1));
  return Object.entries(value).some(([key, item]) => LONE_SURROGATE.test(key) || hasNoJcsForm(item, depth + 1));
}

/**
 * The JSON paths of the card's fields that the `spec` and `sdk` forms leave out (fields outside
 * the 1.0 AgentCard, such as 0.3 `url` or vendor fields), in card order; `signatures` is not one.
 */
export function uncoveredFields(card: Record<string, unknown>): string[] {
  const uncovered: string[] = [];
  projectMessage(AGENT_CARD, card, [], uncovered);
  return uncovered;
}

// ---------------------------------------------------------------------------------------------
// The 1.0 proto AgentCard, field by field
// ---------------------------------------------------------------------------------------------

/**
 * Field presence in the 1.0 proto: `required` = `(google.api.field_behavior) = REQUIRED`;
 * `optional` = proto3 `optional` (presence tracked); `plain` = neither (omitted at its default).
 * REQUIRED and optional fields are kept whenever the card has them (not null), at any value.
 */
type Presence = 'required' | 'optional' | 'plain';

type Kind =
  | { type: 'string' }
  | { type: 'bool' }
  | { type: 'strings' }
  | { type: 'message'; message: MessageSpec }
  | { type: 'messages'; message: MessageSpec }
  | { type: 'map'; value: MessageSpec | 'string' }
  | { type: 'struct' };

interface FieldSpec {
  /** ProtoJSON (lowerCamelCase) name. */
  json: string;
  kind: Kind;
  presence: Presence;
}

interface MessageSpec {
  fields: FieldSpec[];
  /** A proto `oneof` wrapper: only the first member present (in field order) is read, and it is kept even when empty. */
  oneof?: boolean;
  /** Keys read but deliberately not projected (the card's `signatures`). */
  skip?: string[];
}

const STRING: Kind = { type: 'string' };
const BOOL: Kind = { type: 'bool' };
const STRINGS: Kind = { type: 'strings' };
/** One field of a message table: its ProtoJSON name, kind and presence (default `plain`). */
const field = (json: string, kind: Kind, presence: Presence = 'plain'): FieldSpec => ({ json, kind, presence });
const message = (spec: MessageSpec): Kind => ({ type: 'message', message: spec });
const messages = (spec: MessageSpec): Kind => ({ type: 'messages', message: spec });

// The 1.0 AgentCard and the messages it contains (proto `lf.a2a.v1`, A2A-NOTES §2; field order as in the proto).
/** One OAuth flow message: its URLs, then `refreshUrl`, `scopes` (with `scopes`' presence), then `after` (proto field order). */
const flow = (name: string, urls: FieldSpec[], scopes: Presence, after: FieldSpec[] = []): FieldSpec =>
  field(
    name,
    message({
      fields: [
        ...urls,
        field('refreshUrl', STRING),
        field('scopes', { type: 'map', value: 'string' }, scopes),
        ...after,
      ],
    }),
  );
const OAUTH_FLOWS: MessageSpec = {
  oneof: true,
  fields: [
    flow(
      'authorizationCode',
      [field('authorizationUrl', STRING, 'required'), field('tokenUrl', STRING, 'required')],
      'required',
      [field('pkceRequired', BOOL)],
    ),
    flow('clientCredentials', [field('tokenUrl', STRING, 'required')], 'required'),
    flow('implicit', [field('authorizationUrl', STRING)], 'plain'),
    flow('password', [field('tokenUrl', STRING)], 'plain'),
    flow(
      'deviceCode',
      [field('deviceAuthorizationUrl', STRING, 'required'), field('tokenUrl', STRING, 'required')],
      'required',
    ),
  ],
};
const SECURITY_SCHEME: MessageSpec = {
  oneof: true,
  fields: [
    field(
      'apiKeySecurityScheme',
      message({
        fields: [
          field('description', STRING),
          field('location', STRING, 'required'),
          field('name', STRING, 'required'),
        ],
      }),
    ),
    field(
      'httpAuthSecurityScheme',
      message({
        fields: [field('description', STRING), field('scheme', STRING, 'required'), field('bearerFormat', STRING)],
      }),
    ),
    field(
      'oauth2SecurityScheme',
      message({
        fields: [
          field('description', STRING),
          field('flows', message(OAUTH_FLOWS), 'required'),
          field('oauth2MetadataUrl', STRING),
        ],
      }),
    ),
    field(
      'openIdConnectSecurityScheme',
      message({ fields: [field('description', STRING), field('openIdConnectUrl', STRING, 'required')] }),
    ),
    field('mtlsSecurityScheme', message({ fields: [field('description', STRING)] })),
  ],
};
const SECURITY_REQUIREMENT: MessageSpec = {
  fields: [field('schemes', { type: 'map', value: { fields: [field('list', STRINGS)] } })],
};
const AGENT_INTERFACE: MessageSpec = {
  fields: [
    field('url', STRING, 'required'),
    field('protocolBinding', STRING, 'required'),
    field('tenant', STRING),
    field('protocolVersion', STRING, 'required'),
  ],
};
const AGENT_EXTENSION: MessageSpec = {
  fields: [
    field('uri', STRING),
    field('description', STRING),
    field('required', BOOL),
    field('params', { type: 'struct' }),
  ],
};
const AGENT_CAPABILITIES: MessageSpec = {
  fields: [
    field('streaming', BOOL, 'optional'),
    field('pushNotifications', BOOL, 'optional'),
    field('extensions', messages(AGENT_EXTENSION)),
    field('extendedAgentCard', BOOL, 'optional'),
  ],
};
const AGENT_SKILL: MessageSpec = {
  fields: [
    field('id', STRING, 'required'),
    field('name', STRING, 'required'),
    field('description', STRING, 'required'),
    field('tags', STRINGS, 'required'),
    field('examples', STRINGS),
    field('inputModes', STRINGS),
    field('outputModes', STRINGS),
    field('securityRequirements', messages(SECURITY_REQUIREMENT)),
  ],
};
const AGENT_CARD: MessageSpec = {
  skip: ['signatures'],
  fields: [
    field('name', STRING, 'required'),
    field('description', STRING, 'required'),
    field('supportedInterfaces', messages(AGENT_INTERFACE), 'required'),
    field(
      'provider',
      message({ fields: [field('url', STRING, 'required'), field('organization', STRING, 'required')] }),
    ),
    field('version', STRING, 'required'),
    field('documentationUrl', STRING, 'optional'),
    field('capabilities', message(AGENT_CAPABILITIES), 'required'),
    field('securitySchemes', { type: 'map', value: SECURITY_SCHEME }),
    field('securityRequirements', messages(SECURITY_REQUIREMENT)),
    field('defaultInputModes', STRINGS, 'required'),
    field('defaultOutputModes', STRINGS, 'required'),
    field('skills', messages(AGENT_SKILL), 'required'),
    field('iconUrl', STRING, 'optional'),
  ],
};

// ---------------------------------------------------------------------------------------------
// Projection
// ---------------------------------------------------------------------------------------------

/** `protocolBinding` → `protocol_binding`: ProtoJSON readers also accept the proto field name. */
function snakeName(json: string): string {
  return json.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** Whether a JSON value can be read as `kind` (mirrors a lenient ProtoJSON reader: null means unset). */
function readable(kind: Kind, value: unknown): boolean {
  switch (kind.type) {
    case 'strings':
    case 'messages':
      return Array.isArray(value);
    case 'map':
    case 'struct':
      return typeof value === 'object' && value !== null;
    default:
      return value !== undefined && value !== null;
  }
}

/**
 * Project a JSON value onto a proto message per A2A 1.0 §8.4.1. Scalars are coerced the way a
 * lenient ProtoJSON reader (the SDK's ts-proto `fromJSON`) does (`String(x)`, `Boolean(x)`); a
 * non-object message reads as empty. Keys not read are appended (as JSON paths) to `uncovered`.
 */
function projectMessage(
  spec: MessageSpec,
  input: unknown,
  path: PropertyKey[],
  uncovered: string[],
): Record<string, unknown> {
  const source: Record<string, unknown> = isRecord(input) ? input : {};
  const out: Record<string, unknown> = {};
  const read = new Set<string>(spec.skip ?? []);
  for (const fieldSpec of spec.fields) {
    const names = [fieldSpec.json, snakeName(fieldSpec.json)];
    const name = names.find(
      (candidate) => Object.hasOwn(source, candidate) && readable(fieldSpec.kind, source[candidate]),
    );
    if (name === undefined) continue;
    read.add(name);
    const value = projectField(fieldSpec.kind, source[name], [...path, name], uncovered);
    if (spec.oneof || fieldSpec.presence !== 'plain' || !isDefault(value)) put(out, fieldSpec.json, value);
    if (spec.oneof) break;
  }
  for (const key of Object.keys(source)) {
    if (!read.has(key)) uncovered.push(formatPath([...path, key]));
  }
  return out;
}

/** Project one field's value by its kind (see {@link projectMessage}). */
function projectField(kind: Kind, value: unknown, path: PropertyKey[], uncovered: string[]): unknown {
  switch (kind.type) {
    case 'string':
      return String(value);
    case 'bool':
      return Boolean(value);
    case 'strings':
      return (value as unknown[]).map((item) => String(item));
    case 'message':
      return projectMessage(kind.message, value, path, uncovered);
    case 'messages':
      return (value as unknown[]).map((item, index) => projectMessage(kind.message, item, [...path, index], uncovered));
    case 'map': {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value as object)) {
        put(
          out,
          key,
          kind.value === 'string' ? String(item) : projectMessage(kind.value, item, [...path, key], uncovered),
        );
      }
      return out;
    }
    case 'struct':
      return value;
  }
}

/** Proto3 default values: `""`, `false`, `0`, `[]`, `{}`. */
function isDefault(value: unknown): boolean {
  if (value === '' || value === false || value === 0) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isRecord(value) && Object.keys(value).length === 0;
}

/**
 * Remove empty strings, nulls, empty arrays and empty objects recursively (false and 0 are kept);
 * `undefined` when nothing is left. The cleaning step of `@a2a-js/sdk` 1.3.0's canonicalisation.
 */
function dropEmpty(value: unknown): unknown {
  if (value === '' || value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(dropEmpty).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const cleaned = dropEmpty(item);
      if (cleaned !== undefined) put(out, key, cleaned);
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return value;
}

/**
 * The pre-RFC 8785 canonical text of `a2a-sdk` (Python) up to 1.1.x: `json.dumps(card,
 * sort_keys=True, separators=(',', ':'))` of the cleaned proto dict, i.e. keys sorted by code
 * point (not by UTF-16 code unit) and every character outside printable ASCII (U+007F and above,
 * as UTF-16 surrogate pairs beyond U+FFFF) written as a lowercase `\uXXXX` escape. Numbers as
 * JavaScript writes them (a Struct double such as `1.0` differs; cards rarely carry one).
 * @internal
 */
export function pythonLegacyJson(value: unknown): string {
  if (typeof value === 'string') return asciiJsonString(value);
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => pythonLegacyJson(item)).join(',')}]`;
  const keys = Object.keys(value).sort(byCodePoint);
  return `{${keys.map((key) => `${asciiJsonString(key)}:${pythonLegacyJson((value as Record<string, unknown>)[key])}`).join(',')}}`;
}

/** A JSON string as Python's `json.dumps` (ensure_ascii) writes it. */
function asciiJsonString(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Compare two strings by Unicode code point (Python's string order). */
function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** Own enumerable data property, safe for keys such as `__proto__`. */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
