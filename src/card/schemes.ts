/**
 * A card's security: its schemes (1.0 wrapped variants or 0.3 `type` objects) read into
 * {@link SecurityScheme}, its requirement lists (1.0 `securityRequirements`, 0.3 `security`), and
 * the checks that every required scheme is defined and none is named `__proto__`. Pure.
 */
import { formatPath, isRecord } from '../json-path.js';
import { type Fail, parseWith } from './fail.js';
import type { CardShape, SecurityRequirement, SecurityScheme, Warning } from './model.js';
import {
  isSchemeType,
  type SchemeVariant,
  schemeTypeFormat,
  schemeVariantFormat,
  schemeWrappers,
  type WireRequirement,
} from './wire.js';

/**
 * A security scheme named `__proto__`, in `securitySchemes` or in a requirement (card or skill, 1.0
 * or 0.3 form), is card-invalid: the schemas below would drop the key, leaving a requirement that
 * needs no credential. Read on the raw card, before any schema sees it.
 */
export function rejectProtoSchemes(card: Record<string, unknown>, fail: Fail): void {
  const message = 'security scheme name "__proto__" is not allowed';
  if (isRecord(card.securitySchemes) && Object.hasOwn(card.securitySchemes, '__proto__'))
    fail(['securitySchemes', '__proto__'], message);
  const holders: Array<[Record<string, unknown>, PropertyKey[]]> = [[card, []]];
  if (Array.isArray(card.skills)) card.skills.forEach((s, i) => isRecord(s) && holders.push([s, ['skills', i]]));
  for (const [holder, path] of holders) {
    for (const field of ['securityRequirements', 'security']) {
      const list = holder[field];
      if (!Array.isArray(list)) continue;
      list.forEach((r, i) => {
        if (!isRecord(r)) return;
        if (Object.hasOwn(r, '__proto__')) fail([...path, field, i, '__proto__'], message);
        if (isRecord(r.schemes) && Object.hasOwn(r.schemes, '__proto__'))
          fail([...path, field, i, 'schemes', '__proto__'], message);
      });
    }
  }
}

/** One security scheme of `securitySchemes`, in either of its forms, as a {@link SecurityScheme}. */
export function readScheme(raw: Record<string, unknown>, path: PropertyKey[], fail: Fail): SecurityScheme {
  const wrappers = schemeWrappers().filter((k) => k in raw);
  const description = (d: string | null | undefined) => (d ? { description: d } : {});
  if (wrappers.length === 1) {
    const key = wrappers[0]!;
    const inner = parseWith(schemeVariantFormat(key), raw[key], (p, m) => fail([...path, key, ...p], m));
    switch (key) {
      case 'apiKeySecurityScheme': {
        const s = inner as SchemeVariant<'apiKeySecurityScheme'>;
        return { type: 'apiKey', location: s.location, name: s.name, ...description(s.description) };
      }
      case 'httpAuthSecurityScheme': {
        const s = inner as SchemeVariant<'httpAuthSecurityScheme'>;
        return {
          type: 'http',
          scheme: s.scheme,
          ...(s.bearerFormat ? { bearerFormat: s.bearerFormat } : {}),
          ...description(s.description),
        };
      }
      case 'oauth2SecurityScheme': {
        const s = inner as SchemeVariant<'oauth2SecurityScheme'>;
        return {
          type: 'oauth2',
          flows: s.flows,
          ...(s.oauth2MetadataUrl ? { oauth2MetadataUrl: s.oauth2MetadataUrl } : {}),
          ...description(s.description),
        };
      }
      case 'openIdConnectSecurityScheme': {
        const s = inner as SchemeVariant<'openIdConnectSecurityScheme'>;
        return { type: 'openIdConnect', openIdConnectUrl: s.openIdConnectUrl, ...description(s.description) };
      }
      case 'mtlsSecurityScheme': {
        const s = inner as SchemeVariant<'mtlsSecurityScheme'>;
        return { type: 'mtls', ...description(s.description) };
      }
    }
  }
  const type = raw.type;
  if (wrappers.length === 0 && typeof type === 'string' && isSchemeType(type)) {
    const t = type;
    const s = parseWith(schemeTypeFormat(t), raw, (p, m) => fail([...path, ...p], m)) as Record<
      string,
      string | undefined
    > & { flows?: Record<string, unknown> };
    switch (t) {
      case 'apiKey':
        return { type: 'apiKey', location: s.in!, name: s.name!, ...description(s.description) };
      case 'http':
        return {
          type: 'http',
          scheme: s.scheme!,
          ...(s.bearerFormat ? { bearerFormat: s.bearerFormat } : {}),
          ...description(s.description),
        };
      case 'oauth2':
        return {
          type: 'oauth2',
          flows: s.flows!,
          ...(s.oauth2MetadataUrl ? { oauth2MetadataUrl: s.oauth2MetadataUrl } : {}),
          ...description(s.description),
        };
      case 'openIdConnect':
        return { type: 'openIdConnect', openIdConnectUrl: s.openIdConnectUrl!, ...description(s.description) };
      case 'mutualTLS':
        return { type: 'mtls', ...description(s.description) };
    }
  }
  const what =
    wrappers.length > 1
      ? `several variant keys (${wrappers.join(', ')})`
      : typeof type === 'string'
        ? `unknown type "${type}"`
        : 'neither a known type nor a variant key';
  return fail(path, `security-scheme-unrecognized: ${what}`);
}

/**
 * Read the requirement list of a card or skill: 1.0 `securityRequirements`, else 0.3 `security`.
 * `paths[i]` is the JSON path of the scheme-name map of requirement i, as the card spells it.
 */
export function readRequirements(
  holder: { securityRequirements?: unknown[] | null; security?: unknown[] | null },
  shape: CardShape,
  path: PropertyKey[],
  warnings: Warning[],
): { requirements: SecurityRequirement[]; paths: PropertyKey[][] } {
  let list = holder.securityRequirements;
  let field = 'securityRequirements';
  if (!list?.length && holder.security?.length) {
    field = 'security';
    if (shape === '1.0') {
      warnings.push({
        code: 'legacy-security-field',
        message: 'A2A 1.0 card uses the 0.3 "security" field; read as securityRequirements',
        path: formatPath([...path, 'security']),
      });
    }
    list = holder.security;
  }
  const raw = (list ?? []) as WireRequirement[];
  return {
    requirements: raw.map(toRequirement),
    paths: raw.map((r, i) => (isWrapped(r) ? [...path, field, i, 'schemes'] : [...path, field, i])),
  };
}

/** True for the proto form `{schemes: {name: {list}}}` (1.0, and 0.3 proto JSON). */
function isWrapped(r: WireRequirement): boolean {
  return 'schemes' in r && typeof r.schemes === 'object' && r.schemes !== null && !Array.isArray(r.schemes);
}

function toRequirement(r: WireRequirement): SecurityRequirement {
  const out: SecurityRequirement = {};
  if (isWrapped(r)) {
    for (const [name, scopes] of Object.entries(r.schemes as Record<string, { list?: string[] | null }>))
      out[name] = [...(scopes.list ?? [])];
  } else {
    for (const [name, scopes] of Object.entries(r as Record<string, string[]>)) out[name] = [...scopes];
  }
  return out;
}

/** Fail unless every scheme a requirement names is defined in `securitySchemes` (`who`: the card or a skill). */
export function checkSchemesKnown(
  requirements: SecurityRequirement[],
  schemes: Record<string, SecurityScheme>,
  paths: PropertyKey[][],
  who: string,
  fail: Fail,
): void {
  requirements.forEach((r, i) => {
    for (const name of Object.keys(r)) {
      if (!Object.hasOwn(schemes, name))
        fail(
          [...paths[i]!, name],
          `unknown-security-scheme: ${who} requires scheme "${name}", which securitySchemes does not define`,
        );
    }
  });
}
