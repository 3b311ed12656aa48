// The one definition of a runtime conformance case (conformance/runtime/**/*.json; the format is
// described in conformance/README.md). scripts/schemas.js writes schemas/conformance-case.schema.json
// from it; test/runtime/conformance.test.ts parses every case with it. Plain ESM (zod only), so both
// the generator scripts and the tests import it without a build.
import { z } from 'zod';

/** The rules a case exercises: the directory under conformance/runtime/ that holds it. */
export const CONFORMANCE_RULES = [
  'interface-url',
  'a2a-version',
  'extensions',
  'jsonrpc-method',
  'rest-route',
  'delivery',
  'push',
  'input-modes',
  'output-modes',
  'redirects',
  'credential-apikey',
  'credential-http',
  'credential-oauth2',
  'credential-sources',
  'origin-auth',
  'cleartext',
  'fallbacks',
  'card',
  'lockfile',
  'digest',
];

/** The placeholders a runner substitutes in the case's JSON text (see conformance/README.md). */
export const CONFORMANCE_PLACEHOLDERS = ['{{recorder}}', '{{other}}', '{{port}}', '{{integrity}}', '{{digest}}'];

const Json = z.json();
const Headers = z.record(z.string(), z.string());
const Recorder = z.enum(['recorder', 'other']);

/** One JSON Patch (RFC 6902) operation of the subset both runners apply: add, replace, remove. */
const PatchOp = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('add'), path: z.string(), value: Json }),
  z.strictObject({ op: z.literal('replace'), path: z.string(), value: Json }),
  z.strictObject({ op: z.literal('remove'), path: z.string() }),
]);

/** How a recorder answers one request. */
const Response = z.strictObject({
  /** Which recorder answers with it (default "recorder"). */
  recorder: z.optional(Recorder),
  /** Only a request to this path (without the query) takes this answer; absent: any request. */
  path: z.optional(z.string()),
  status: z.int().min(200).max(599),
  headers: z.optional(Headers),
  /** The JSON body (absent: none). */
  body: z.optional(Json),
});

/** One request a recorder must have received, in order. */
const Received = z.strictObject({
  /** Which recorder received it (default "recorder"). */
  recorder: z.optional(Recorder),
  method: z.string(),
  /** The request target: path and query, exactly as received. */
  url: z.string(),
  /** Headers (lower-case names) with their exact value; null: the header must be absent. */
  headers: z.optional(z.record(z.string(), z.nullable(z.string()))),
  /** The JSON body must contain this (objects: these members, recursively; arrays: these items, same length). */
  body: z.optional(Json),
  /** The body is application/x-www-form-urlencoded with at least these fields (exact values). */
  form: z.optional(z.record(z.string(), z.string())),
});

export const ConformanceCaseSchema = z
  .strictObject({
    $schema: z.optional(z.string()),
    /** `<rule>/<name>`: the case's path under conformance/runtime/, without `.json`. */
    id: z.string().regex(/^[a-z0-9-]+\/[a-z0-9-]+$/),
    rule: z.enum(CONFORMANCE_RULES),
    /** What the case shows, one sentence. */
    description: z.string().min(1),
    /** A directory under conformance/runtime/fixtures/ holding a2a.lock.json and, when there is one, a2a.json. */
    fixture: z.optional(z.string().regex(/^[a-z0-9-]+$/)),
    /** The lockfile inline (an object), or its raw text (a string); with `fixture`: replaces the fixture's. */
    lockfile: z.optional(z.union([z.record(z.string(), Json), z.string()])),
    /** The manifest inline (an object) or raw text; null: no manifest beside the lockfile. */
    manifest: z.optional(z.nullable(z.union([z.record(z.string(), Json), z.string()]))),
    /** JSON Patch operations applied to the (object) lockfile and manifest before the placeholders are substituted. */
    patch: z.optional(
      z.strictObject({
        lockfile: z.optional(z.array(PatchOp)),
        manifest: z.optional(z.array(PatchOp)),
      }),
    ),
    /** What the runner gives the loader (JavaScript `loadLock` / Python `load_lock`). */
    options: z.optional(
      z.strictObject({
        /** The environment the loader reads credentials from (`env`): the only one, not the process's. */
        env: z.optional(z.record(z.string(), z.string())),
        /**
         * Credential providers per agent and scheme (`credentials`), each returning this value with
         * `{agent}`, `{skill}`, `{scheme}`, `{scopes}` (space-separated) and `{origin}` filled from what it is asked.
         */
        credentials: z.optional(z.record(z.string(), z.record(z.string(), z.string()))),
        /** One credentials function for every agent and scheme, returning this value (filled in as above). */
        credentialsFunction: z.optional(z.string()),
        /** Platform credential providers per origin, each returning this value (`originAuth` / `origin_auth`). */
        originAuth: z.optional(z.record(z.string(), z.string())),
        /** The lockfile digest to expect (`expectDigest` / `expect_digest`); "{{digest}}": the written lockfile's. */
        expectDigest: z.optional(z.string()),
      }),
    ),
    /** The locked agent to call. */
    agent: z.string(),
    /** The locked skill; absent: the agent-level plan "*". */
    skill: z.optional(z.string()),
    /** How the recorders answer: each request takes the first unused answer that matches it, else the default. */
    responses: z.optional(z.array(Response)),
    /** The call made through the enforcing client (`agent.fetch` / `httpx_client()`). */
    request: z.strictObject({
      method: z.string(),
      url: z.string(),
      headers: z.optional(Headers),
      /** A JSON body, sent as its compact JSON text. */
      body: z.optional(Json),
      /** A body sent as this text (not JSON, or JSON spelt a particular way). */
      bodyText: z.optional(z.string()),
    }),
    expect: z.strictObject({
      /**
       * sent: the call returned an answer and a recorder received the request; served: the call returned
       * an answer made from the lockfile (the locked card) and no recorder received a byte; refused: it
       * raised an error with `code`.
       */
      verdict: z.enum(['sent', 'served', 'refused']),
      /** The error's code (refused only). */
      code: z.optional(z.string()),
      /** Every request the recorders received, in order; a recorder listed in none received zero bytes. */
      requests: z.array(Received),
      /** sent or served: the answer the call returned has this status, these headers (lower-case names, exact values; null: absent) and a JSON body containing this. */
      response: z.optional(
        z.strictObject({
          status: z.optional(z.int()),
          headers: z.optional(z.record(z.string(), z.nullable(z.string()))),
          body: z.optional(Json),
        }),
      ),
    }),
  })
  // Rules the JSON Schema cannot say; the runners rely on them.
  .refine((c) => (c.expect.verdict === 'refused') === (c.expect.code !== undefined), {
    message: 'a refused verdict names its code; a sent one has none',
    path: ['expect', 'code'],
  })
  .refine((c) => c.expect.verdict !== 'served' || c.expect.requests.length === 0, {
    message: 'a served answer reaches no recorder',
    path: ['expect', 'requests'],
  })
  .refine((c) => c.expect.verdict !== 'refused' || c.expect.response === undefined, {
    message: 'a refused call has no answer',
    path: ['expect', 'response'],
  })
  .refine((c) => c.fixture !== undefined || c.lockfile !== undefined, {
    message: 'a case names a fixture or gives its lockfile',
    path: ['lockfile'],
  })
  .refine((c) => c.request.body === undefined || c.request.bodyText === undefined, {
    message: 'a request has a JSON body or a body text, not both',
    path: ['request', 'bodyText'],
  });
