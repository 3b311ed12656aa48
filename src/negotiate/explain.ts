/**
 * explainNegotiation(): the negotiation trace spelled out for a reviewer (`a2a why`). Runs
 * {@link negotiate} and, for each step it passed or stopped at, lists every candidate the step
 * weighed, whether it qualified and why not, which one won and the rule that made it win.
 *
 * Kept out of negotiate()'s hot path: only `why` asks for it. The winners are read from
 * negotiate()'s own result, so the explanation never disagrees with the plan. Pure.
 */
import { contactedHostNote } from '../card/host.js';
import { sameMediaType } from '../card/media.js';
import type { AgentInterface, AgentSkill, NormalizedCard } from '../card/model.js';
import { majorMinor } from '../card/version.js';
import { agentLevelSkill, describeRequirement, type NegotiateOptions, negotiate } from './negotiate.js';
import { AGENT_LEVEL, type ClientProfile, type Delivery, type NegotiationResult, type TraceStep } from './types.js';

/** One candidate a step weighed. */
export interface Candidate {
  /** What was weighed, e.g. `"JSONRPC 1.0"`, `"[bearer]"`, `"accept application/json"`, `"stream"`. */
  value: string;
  /** Whether it qualified. */
  ok: boolean;
  /** The winner of the step (at most one per step; none for media types, where every qualifying one is kept). */
  chosen?: true;
  /** Why it qualified or not, e.g. `"offered at https://…"`, `"not held: oauth"`. */
  note: string;
}

/** One step of {@link explainNegotiation}: the trace step plus the rule and every candidate. */
export interface ExplainedStep extends Omit<TraceStep, 'candidates'> {
  /** The rule that picks the winner (or, for a refused step, what was required). */
  why: string;
  candidates: Candidate[];
}

/** The result of {@link explainNegotiation}: negotiate()'s result plus the explained steps. */
export type Explanation = NegotiationResult & { steps: ExplainedStep[] };

/**
 * Negotiate (without a locked plan) and explain each step. Same inputs and result as {@link negotiate}.
 * @returns negotiate()'s result with `steps`: one entry per trace step, in order
 */
export function explainNegotiation(
  card: NormalizedCard,
  skillId: string,
  profile: ClientProfile,
  credentials: Iterable<string>,
  options: Pick<NegotiateOptions, 'versionRange'> = {},
): Explanation {
  const held = new Set(credentials);
  const result = negotiate(card, skillId, profile, held, options);
  const agentLevel = skillId === AGENT_LEVEL;
  const skill = agentLevel ? agentLevelSkill(card) : card.skills.find((s) => s.id === skillId);
  // biome-ignore lint/suspicious/useIterableCallbackReturn: the switch covers every step kind (tsc checks the return type)
  const steps = result.trace.map((step): ExplainedStep => {
    const { candidates: _c, ...base } = step;
    switch (step.step) {
      case 'skill':
        if (agentLevel) {
          return {
            ...base,
            why: `the manifest names no skill: one agent-level plan "${AGENT_LEVEL}" from the card's default input and output modes and its card-level security requirements`,
            candidates: [
              {
                value: AGENT_LEVEL,
                ok: true,
                chosen: true,
                note: card.skills.length
                  ? `the card's ${card.skills.length} skill(s) are not used`
                  : 'the card lists no skills',
              },
            ],
          };
        }
        return {
          ...base,
          why: 'the manifest names the skill by id',
          candidates: card.skills.map((s) => ({
            value: s.id,
            ok: s.id === skillId,
            ...(s.id === skillId ? { chosen: true as const } : {}),
            note: s.name,
          })),
        };
      case 'version':
        return {
          ...base,
          why: `the card version must satisfy the manifest range ${options.versionRange}`,
          candidates: [
            {
              value: card.version,
              ok: step.ok,
              ...(step.ok ? { chosen: true as const } : {}),
              note: step.ok ? `satisfies ${options.versionRange}` : 'outside the range',
            },
          ],
        };
      case 'interface':
        return { ...base, ...interfaces(card, profile, step.chosen as AgentInterface | undefined) };
      case 'security':
        return { ...base, ...security(card, skill!, held, step.ok) };
      case 'media':
        return { ...base, ...media(card, skill!, profile) };
      case 'delivery':
        return { ...base, ...delivery(card, profile, step.chosen as Delivery) };
      case 'extensions':
        return { ...base, ...extensions(card, profile) };
    }
  });
  return { ...result, steps };
}

type Part = Pick<ExplainedStep, 'why' | 'candidates'>;

/** Every binding × version pair of the profile, in preference order; the card's other interfaces after them. */
function interfaces(card: NormalizedCard, profile: ClientProfile, won: AgentInterface | undefined): Part {
  const candidates: Candidate[] = [];
  const considered = new Set<string>();
  for (const v of profile.versions) {
    const version = majorMinor(v);
    for (const binding of profile.bindings) {
      const offers = card.supportedInterfaces.filter(
        (i) => i.protocolBinding === binding && i.protocolVersion === version,
      );
      offers.forEach((i) => considered.add(`${i.protocolBinding} ${i.protocolVersion} ${i.url}`));
      const value = `${binding} ${version}`;
      const winner = won && won.protocolBinding === binding && won.protocolVersion === version;
      if (winner)
        candidates.push({
          value,
          ok: true,
          chosen: true,
          note: `offered at ${won.url}${contactedHostNote(won.url)}${offers.length > 1 ? ` (first of ${offers.length} in card order)` : ''}`,
        });
      else if (offers.length === 0) candidates.push({ value, ok: false, note: 'not offered by the card' });
      else
        candidates.push({
          value,
          ok: true,
          note: `offered at ${offers[0]!.url}${contactedHostNote(offers[0]!.url)}; a more preferred pair won`,
        });
    }
  }
  for (const i of card.supportedInterfaces) {
    if (!considered.has(`${i.protocolBinding} ${i.protocolVersion} ${i.url}`)) {
      candidates.push({
        value: `${i.protocolBinding} ${i.protocolVersion}`,
        ok: false,
        note: `offered at ${i.url}${contactedHostNote(i.url)}; not in the client profile`,
      });
    }
  }
  return {
    why: `the first pair in the client's preference order (each version of ${JSON.stringify(profile.versions)}, then each binding of ${JSON.stringify(profile.bindings)}) that the card offers; card order only breaks ties`,
    candidates,
  };
}

/** Every alternative of the governing security requirement list, in card order. */
function security(card: NormalizedCard, skill: AgentSkill, held: ReadonlySet<string>, passed: boolean): Part {
  const own = Boolean(skill.securityRequirements?.length);
  const requirements = own ? skill.securityRequirements! : card.securityRequirements;
  const whose = own ? `skill "${skill.id}"` : 'the card';
  if (requirements.length === 0)
    return { why: `${whose} lists no security requirement: no credential is sent`, candidates: [] };
  let chosenSeen = false;
  const candidates = requirements.map((r): Candidate => {
    const missing = Object.keys(r).filter((s) => !held.has(s));
    const chosen = missing.length === 0 && !chosenSeen && passed;
    if (chosen) chosenSeen = true;
    return {
      value: describeRequirement(r),
      ok: missing.length === 0,
      ...(chosen ? { chosen: true as const } : {}),
      note: missing.length
        ? `not held: ${missing.join(', ')}`
        : chosen
          ? 'every scheme held'
          : 'every scheme held; an earlier alternative won',
    };
  });
  return {
    why: `${whose} requires one of these alternatives; the first (card order) whose schemes are all held wins (held: ${held.size ? [...held].join(', ') : 'none'})`,
    candidates,
  };
}

/** Each type the client sends against the skill's input modes; each type it accepts against the output modes. */
function media(card: NormalizedCard, skill: AgentSkill, profile: ClientProfile): Part {
  const ownIn = Boolean(skill.inputModes?.length);
  const ownOut = Boolean(skill.outputModes?.length);
  const inputs = ownIn ? skill.inputModes! : card.defaultInputModes;
  const outputs = ownOut ? skill.outputModes! : card.defaultOutputModes;
  const candidates: Candidate[] = [];
  for (const type of profile.sends) {
    const theirs = inputs.find((m) => sameMediaType(m, type));
    candidates.push({
      value: `send ${type}`,
      ok: theirs !== undefined,
      note: theirs !== undefined ? `the skill takes ${theirs}` : 'the skill does not take it',
    });
  }
  for (const type of profile.accepts) {
    const theirs = outputs.find((m) => sameMediaType(m, type));
    candidates.push({
      value: `accept ${type}`,
      ok: theirs !== undefined,
      note: theirs !== undefined ? `the skill outputs ${theirs}` : 'the skill does not output it',
    });
  }
  const from = (own: boolean) => (own ? `skill "${skill.id}"` : 'the card defaults');
  return {
    why: `every type the client sends must be an input mode (${from(ownIn)}: ${inputs.join(', ') || 'none'}); acceptedOutputModes = the client's accepts, in its order, that are output modes (${from(ownOut)}: ${outputs.join(', ') || 'none'})`,
    candidates,
  };
}

/** stream, push, poll: the first both sides support. */
function delivery(card: NormalizedCard, profile: ClientProfile, chosen: Delivery): Part {
  const options: Array<[string, boolean, string]> = [
    [
      'stream',
      card.capabilities.streaming && profile.streaming,
      `card streaming: ${card.capabilities.streaming}; client streaming: ${profile.streaming}`,
    ],
    [
      'push',
      card.capabilities.pushNotifications && profile.pushEndpoint !== null,
      `card pushNotifications: ${card.capabilities.pushNotifications}; client pushEndpoint: ${profile.pushEndpoint ? 'set' : 'none'}`,
    ],
    ['poll', true, 'always possible'],
  ];
  return {
    why: 'the first of stream, push, poll that both the card and the client support',
    candidates: options.map(([value, ok, note]) => ({
      value,
      ok,
      ...(value === chosen ? { chosen: true as const } : {}),
      note,
    })),
  };
}

/** Each extension the card declares. */
function extensions(card: NormalizedCard, profile: ClientProfile): Part {
  return {
    why: "active = the card's extensions the client implements, in card order; a required one the client lacks is a refusal",
    candidates: card.capabilities.extensions.map((e) => {
      const implemented = profile.extensions.includes(e.uri);
      return {
        value: e.uri,
        ok: implemented || !e.required,
        note: implemented
          ? `${e.required ? 'required' : 'optional'}; the client implements it: active`
          : e.required
            ? 'required; the client does not implement it'
            : 'optional; the client does not implement it: inactive',
      };
    }),
  };
}
