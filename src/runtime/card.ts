/**
 * The locked card narrowed to the plan, as `agent.fetch` serves it for a GET of the locked card
 * URL (and the well-known card paths on the locked origins) and as `agent.card` exposes it: only
 * the locked interface and its locked fallbacks, `capabilities.streaming` / `pushNotifications`
 * matching the locked delivery, only the locked extensions, only the locked security requirement,
 * and the locked skill with its locked input modes and the locked accepted output modes.
 * Two wire shapes: A2A 1.0 ProtoJSON (§4.4 AgentCard, `supportedInterfaces`) and A2A 0.3
 * (`url` / `preferredTransport` / `additionalInterfaces`, OpenAPI-style security schemes).
 */
import type { NormalizedCard, SecurityScheme } from '../card/model.js';
import type { FallbackInterface, Plan } from '../negotiate/types.js';

/** The card shapes served: `"1.0"` or `"0.3"`. */
export type CardWireShape = '1.0' | '0.3';

/** What the narrowed card is made from. */
export interface NarrowInput {
  card: NormalizedCard;
  skill: string;
  plan: Plan;
  /** The skill's locked input modes. */
  inputModes: readonly string[];
}

/**
 * The shape a card request asks for by its `A2A-Version` header (as the SDK's card handler
 * answers it): absent, empty or 0.x → `"0.3"`; anything else → `"1.0"`.
 */
function shapeForVersion(header: string | null | undefined): CardWireShape {
  const v = (header ?? '').trim();
  return v === '' || /^0\.\d/.test(v) ? '0.3' : '1.0';
}

/** The narrowed card in `shape` (see the module comment); a fresh JSON object each call. */
export function narrowedCard(input: NarrowInput, shape: CardWireShape): Record<string, unknown> {
  const { card, plan } = input;
  const found = card.skills.find((s) => s.id === input.skill);
  const interfaces: FallbackInterface[] = [plan, ...(plan.fallbacks?.interfaces ?? [])].map((i) => ({
    url: i.url,
    protocolBinding: i.protocolBinding,
    protocolVersion: i.protocolVersion,
    ...(i.tenant ? { tenant: i.tenant } : {}),
  }));
  const extensions = card.capabilities.extensions
    .filter((e) => plan.extensions.includes(e.uri))
    .map((e) => ({
      uri: e.uri,
      required: e.required,
      ...(e.description ? { description: e.description } : {}),
      ...(e.params ? { params: e.params } : {}),
    }));
  const capabilities = {
    streaming: plan.delivery === 'stream',
    pushNotifications: plan.delivery === 'push',
    extensions,
  };
  const skill = {
    id: input.skill,
    name: found?.name ?? input.skill,
    description: found?.description ?? '',
    tags: [...(found?.tags ?? [])],
    ...(found?.examples ? { examples: [...found.examples] } : {}),
    inputModes: [...input.inputModes],
    outputModes: [...plan.acceptedOutputModes],
  };
  const schemes = Object.keys(plan.security).filter((name) => card.securitySchemes[name] !== undefined);
  const common = { name: card.name, description: card.description, version: card.version };
  if (shape === '1.0') {
    return {
      ...common,
      supportedInterfaces: interfaces,
      capabilities: { ...capabilities, extendedAgentCard: false },
      securitySchemes: Object.fromEntries(schemes.map((name) => [name, scheme10(card.securitySchemes[name]!)])),
      securityRequirements: schemes.length
        ? [{ schemes: Object.fromEntries(schemes.map((name) => [name, { list: [...plan.security[name]!] }])) }]
        : [],
      defaultInputModes: [...input.inputModes],
      defaultOutputModes: [...plan.acceptedOutputModes],
      skills: input.skill === '*' ? [] : [skill],
    };
  }
  // 0.3: the locked interface leads (a 0.3 client talks to it; agent.fetch enforces it), the locked fallbacks follow.
  const [primary, ...rest] = interfaces;
  return {
    ...common,
    protocolVersion: `${primary!.protocolVersion}.0`,
    url: primary!.url,
    preferredTransport: primary!.protocolBinding,
    additionalInterfaces: rest.map((i) => ({ url: i.url, transport: i.protocolBinding })),
    capabilities,
    securitySchemes: Object.fromEntries(schemes.map((name) => [name, scheme03(card.securitySchemes[name]!)])),
    security: schemes.length ? [Object.fromEntries(schemes.map((name) => [name, [...plan.security[name]!]]))] : [],
    supportsAuthenticatedExtendedCard: false,
    defaultInputModes: [...input.inputModes],
    defaultOutputModes: [...plan.acceptedOutputModes],
    // The agent-level plan "*" is no skill of the card.
    skills: input.skill === '*' ? [] : [skill],
  };
}

/** A security scheme as 1.0 ProtoJSON (the oneof wrapper). */
function scheme10(s: SecurityScheme): Record<string, unknown> {
  const description = s.description ? { description: s.description } : {};
  switch (s.type) {
    case 'apiKey':
      return { apiKeySecurityScheme: { location: s.location, name: s.name, ...description } };
    case 'http':
      return {
        httpAuthSecurityScheme: {
          scheme: s.scheme,
          ...(s.bearerFormat ? { bearerFormat: s.bearerFormat } : {}),
          ...description,
        },
      };
    case 'oauth2':
      return {
        oauth2SecurityScheme: {
          flows: s.flows,
          ...(s.oauth2MetadataUrl ? { oauth2MetadataUrl: s.oauth2MetadataUrl } : {}),
          ...description,
        },
      };
    case 'openIdConnect':
      return { openIdConnectSecurityScheme: { openIdConnectUrl: s.openIdConnectUrl, ...description } };
    case 'mtls':
      return { mtlsSecurityScheme: { ...description } };
  }
}

/** A security scheme in the 0.3 (OpenAPI) form. */
function scheme03(s: SecurityScheme): Record<string, unknown> {
  const description = s.description ? { description: s.description } : {};
  switch (s.type) {
    case 'apiKey':
      return { type: 'apiKey', in: s.location, name: s.name, ...description };
    case 'http':
      return {
        type: 'http',
        scheme: s.scheme,
        ...(s.bearerFormat ? { bearerFormat: s.bearerFormat } : {}),
        ...description,
      };
    case 'oauth2':
      return {
        type: 'oauth2',
        flows: s.flows,
        ...(s.oauth2MetadataUrl ? { oauth2MetadataUrl: s.oauth2MetadataUrl } : {}),
        ...description,
      };
    case 'openIdConnect':
      return { type: 'openIdConnect', openIdConnectUrl: s.openIdConnectUrl, ...description };
    case 'mtls':
      return { type: 'mutualTLS', ...description };
  }
}

/**
 * `inner` (the plan's enforcing fetch), except that a GET or HEAD of one of `cardUrls` (origin +
 * path; query and fragment ignored) is answered here, without the network: 200 with the narrowed
 * card in the shape the request's `A2A-Version` asks for ({@link shapeForVersion}),
 * `Content-Type: application/json`, `Vary: A2A-Version`. Anything else goes to `inner`.
 */
export function cardServingFetch(
  inner: typeof fetch,
  cardUrls: ReadonlySet<string>,
  card: (shape: CardWireShape) => Record<string, unknown>,
): typeof fetch {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = typeof input === 'object' && !(input instanceof URL) ? input : undefined;
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    if (method === 'GET' || method === 'HEAD') {
      let url: URL | undefined;
      try {
        url = new URL(request ? request.url : String(input));
      } catch {
        url = undefined;
      }
      if (url && cardUrls.has(`${url.origin}${url.pathname}`)) {
        const headers = new Headers(init?.headers ?? request?.headers);
        const body = JSON.stringify(card(shapeForVersion(headers.get('a2a-version'))));
        return new Response(method === 'HEAD' ? null : body, {
          status: 200,
          headers: { 'content-type': 'application/json', vary: 'A2A-Version' },
        });
      }
    }
    return inner(input, init);
  };
}

/** The card URLs answered from the lock: the locked card URL, and both well-known card paths on each locked http(s) origin. */
export function lockedCardUrls(
  resolved: string,
  interfaces: readonly FallbackInterface[],
  wellKnown: readonly string[],
): Set<string> {
  const out = new Set<string>();
  const origins = new Set<string>();
  for (const u of [resolved, ...interfaces.map((i) => i.url)]) {
    if (!/^https?:\/\//i.test(u)) continue;
    try {
      const url = new URL(u);
      origins.add(url.origin);
      if (u === resolved) out.add(`${url.origin}${url.pathname}`);
    } catch {
      // not a URL: nothing to answer
    }
  }
  for (const origin of origins) for (const path of wellKnown) out.add(`${origin}${path}`);
  return out;
}
