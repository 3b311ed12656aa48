/**
 * Card reading: validate an agent card as served (A2A 1.0 ProtoJSON, 0.3 JSON in both of its forms,
 * 0.2.x, hybrids) and normalise it to one {@link NormalizedCard}. Pure: values in, values out.
 *
 * Spec: A2A 1.0 `specification/a2a.proto` AgentCard (§8.1 of the spec), 0.3 `types/src/types.ts`
 * AgentCard, and the 0.3 → 1.0 mapping of the 1.0 migration guide.
 */
import { InvalidInputError } from '../errors.js';
import { formatPath } from '../json-path.js';
import type { Fail } from './fail.js';
import { type CardSource, placeInterfaces, readLegacyInterfaces, readV1Interfaces } from './interfaces.js';
import { sameMediaType } from './media.js';
import type { AgentSkill, CardShape, NormalizedCard, SecurityScheme, Warning } from './model.js';
import { checkSchemesKnown, readRequirements, readScheme, rejectProtoSchemes } from './schemes.js';
import { cardSemver } from './version.js';
import { type CommonCard, SNAKE_TO_CAMEL } from './wire.js';

export type { CardSource } from './interfaces.js';

/** Result of {@link normalizeCard}. */
export interface NormalizeResult {
  card: NormalizedCard;
  warnings: Warning[];
}

/**
 * Validate and normalise an agent card.
 *
 * @param raw the parsed JSON as served (never mutated)
 * @throws InvalidInputError `card-invalid`, one line naming the source and the JSON path
 */
export function normalizeCard(raw: unknown, from: CardSource): NormalizeResult {
  const warnings: Warning[] = [];
  const fail: Fail = (path, message) => {
    throw new InvalidInputError('card-invalid', from.source, message, { path: formatPath(path) });
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail([], 'an agent card must be a JSON object');
  const obj = raw as Record<string, unknown>;
  rejectSnakeCase(obj, fail);
  rejectProtoSchemes(obj, fail);

  const hasV1 = Array.isArray(obj.supportedInterfaces) && obj.supportedInterfaces.length > 0;
  const hasLegacy = 'url' in obj || 'preferredTransport' in obj || 'additionalInterfaces' in obj;
  if (!hasV1 && !hasLegacy) {
    if ('supportedInterfaces' in obj) fail(['supportedInterfaces'], 'must be a non-empty array of interfaces');
    fail(['supportedInterfaces'], 'missing: a card needs supportedInterfaces (A2A 1.0) or url (A2A 0.3)');
  }
  if ('authentication' in obj && !('securitySchemes' in obj)) {
    warnings.push({
      code: 'legacy-authentication-ignored',
      message: 'A2A 0.1 "authentication" is not understood; no security requirement is derived from it',
      path: '$.authentication',
    });
  }

  const read = hasV1
    ? readV1Interfaces(obj, hasLegacy, warnings, fail)
    : readLegacyInterfaces(obj, from, warnings, fail);
  const { shape, base } = read;
  const interfaces = placeInterfaces(read.interfaces, read.urlPaths, from, warnings, fail);

  // fromEntries defines own properties, so even a scheme named "__proto__" stays data.
  const securitySchemes: Record<string, SecurityScheme> = Object.fromEntries(
    Object.entries(base.securitySchemes ?? {}).map(([name, scheme]) => [
      name,
      readScheme(scheme, ['securitySchemes', name], fail),
    ]),
  );

  const { requirements: cardRequirements, paths: cardRequirementPaths } = readRequirements(base, shape, [], warnings);
  checkSchemesKnown(cardRequirements, securitySchemes, cardRequirementPaths, 'the card', fail);

  const defaultInputModes = readModes(base.defaultInputModes, ['defaultInputModes'], warnings, fail);
  const defaultOutputModes = readModes(base.defaultOutputModes, ['defaultOutputModes'], warnings, fail);
  const skills = readSkills(base, shape, securitySchemes, warnings, fail);

  const semver = cardSemver(base.version);
  if (semver?.coerced) {
    warnings.push({
      code: 'version-not-semver',
      message: `card version "${base.version}" is not semver; a manifest version range compares it as ${semver.semver}`,
      path: '$.version',
    });
  }

  const caps = base.capabilities ?? {};
  const card: NormalizedCard = {
    name: base.name,
    description: base.description,
    version: base.version,
    shape,
    supportedInterfaces: interfaces,
    capabilities: {
      streaming: caps.streaming ?? false,
      pushNotifications: caps.pushNotifications ?? false,
      extendedAgentCard: read.extendedFlag ?? false,
      extensions: (caps.extensions ?? []).map((e) => ({
        uri: e.uri,
        required: e.required ?? false,
        ...(e.description ? { description: e.description } : {}),
        ...(e.params ? { params: e.params } : {}),
      })),
    },
    securitySchemes,
    securityRequirements: cardRequirements,
    defaultInputModes,
    defaultOutputModes,
    skills,
  };
  return { card, warnings };
}

/**
 * The card's skills (absent: `[]`, `skills-missing` warned): ids unique, modes read, each skill's
 * own security requirements checked against the card's schemes.
 */
function readSkills(
  base: CommonCard,
  shape: CardShape,
  securitySchemes: Record<string, SecurityScheme>,
  warnings: Warning[],
  fail: Fail,
): AgentSkill[] {
  if (base.skills === undefined) {
    warnings.push({
      code: 'skills-missing',
      message:
        'card has no "skills" (required by A2A); read as [] (lock the agent with a manifest entry that lists no skills: one agent-level plan "*")',
      path: '$.skills',
    });
  }
  const seen = new Set<string>();
  return (base.skills ?? []).map((s, index) => {
    const path = ['skills', index];
    if (seen.has(s.id)) fail([...path, 'id'], `duplicate skill id "${s.id}"`);
    seen.add(s.id);
    const skill: AgentSkill = { id: s.id, name: s.name, description: s.description, tags: s.tags ?? [] };
    if (s.examples?.length) skill.examples = s.examples;
    if (s.inputModes?.length) skill.inputModes = readModes(s.inputModes, [...path, 'inputModes'], warnings, fail);
    if (s.outputModes?.length) skill.outputModes = readModes(s.outputModes, [...path, 'outputModes'], warnings, fail);
    const { requirements, paths: requirementPaths } = readRequirements(s, shape, path, warnings);
    if (requirements.length) {
      checkSchemesKnown(requirements, securitySchemes, requirementPaths, `skill "${s.id}"`, fail);
      skill.securityRequirements = requirements;
    }
    return skill;
  });
}

function rejectSnakeCase(obj: Record<string, unknown>, fail: Fail): void {
  const check = (o: unknown, path: PropertyKey[]): void => {
    if (typeof o !== 'object' || o === null || Array.isArray(o)) return;
    for (const key of Object.keys(o)) {
      const camel = SNAKE_TO_CAMEL.get(key);
      if (camel) fail([...path, key], `snake_case key; A2A JSON uses camelCase "${camel}"`);
    }
  };
  check(obj, []);
  check(obj.capabilities, ['capabilities']);
  for (const list of ['supportedInterfaces', 'additionalInterfaces', 'skills'] as const) {
    const items = obj[list];
    if (Array.isArray(items)) items.forEach((item, i) => check(item, [list, i]));
  }
}

const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*;.*)?$/;

/**
 * Normalise a list of media types: a bare `text` is kept in the agent's spelling and compared as
 * `text/plain` (`card/media.ts`; warning), so a plan carries what the agent understands; other
 * non-media-type tokens dropped (warning); a mode repeated (as media types compare) kept once.
 */
function readModes(modes: string[], path: PropertyKey[], warnings: Warning[], fail: Fail): string[] {
  const out: string[] = [];
  modes.forEach((mode, i) => {
    const m = mode.trim();
    if (MEDIA_TYPE.test(m)) {
      if (!out.some((o) => sameMediaType(o, m))) out.push(m);
    } else if (m.toLowerCase() === 'text') {
      warnings.push({
        code: 'mode-not-media-type',
        message: `mode "${m}" is not a media type; compared as "text/plain", and plans keep the agent's spelling`,
        path: formatPath([...path, i]),
      });
      if (!out.some((o) => sameMediaType(o, m))) out.push(m);
    } else {
      warnings.push({
        code: 'mode-not-media-type',
        message: `mode "${mode}" is not a media type; dropped`,
        path: formatPath([...path, i]),
      });
    }
  });
  if (modes.length > 0 && out.length === 0) fail(path, 'no valid media type left (every entry was dropped)');
  return out;
}
