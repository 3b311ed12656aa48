/**
 * Hostile agent cards for the card-reader fuzz: the real-card fixtures mutated (values replaced,
 * keys deleted, types swapped, strings and arrays blown up, deep nesting, `__proto__` keys),
 * mutated as text (truncated, bytes flipped), and cards generated from scratch. Seeded, so a
 * failing case is reproducible from its seed and index. Used by `scripts/fuzz.js` (against
 * dist) and `test/card/fuzz.test.ts` (against src).
 */

/** mulberry32: a small seeded PRNG returning floats in [0, 1). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = [
  'name',
  'description',
  'version',
  'url',
  'protocolVersion',
  'preferredTransport',
  'additionalInterfaces',
  'supportedInterfaces',
  'protocolBinding',
  'tenant',
  'capabilities',
  'streaming',
  'pushNotifications',
  'extendedAgentCard',
  'extensions',
  'uri',
  'required',
  'securitySchemes',
  'securityRequirements',
  'security',
  'schemes',
  'list',
  'defaultInputModes',
  'defaultOutputModes',
  'skills',
  'id',
  'tags',
  'inputModes',
  'outputModes',
  'signatures',
  'protected',
  'signature',
  'httpAuthSecurityScheme',
  'scheme',
  'type',
  'in',
  '__proto__',
  'constructor',
  'toString',
  'default_input_modes',
  'supportsAuthenticatedExtendedCard',
  '',
];
const STRINGS = [
  '',
  ' ',
  '1.0',
  '0.3',
  '0.2.5',
  'v1',
  '2025-06-18',
  'JSONRPC',
  'jsonrpc',
  'HTTP+JSON',
  'GRPC',
  'https://agent.example/rpc',
  '/relative',
  'http://10.0.0.1/',
  'javascript:alert(1)',
  'text/plain',
  'application/json',
  '*/*',
  'text/*',
  'bearer',
  'apiKey',
  'header',
  'query',
  '\u0000',
  '\u202e',
  '\ud800',
  'é',
  '🤖',
  '__proto__',
  'toString',
  'constructor',
  'hasOwnProperty',
  'a'.repeat(300),
];

/** Build the fuzz helpers around one random source. */
function tools(random) {
  const int = (n) => Math.floor(random() * n);
  const pick = (list) => list[int(list.length)];

  function value(depth = 0) {
    switch (int(depth > 3 ? 5 : 8)) {
      case 0:
        return null;
      case 1:
        return random() < 0.5;
      case 2:
        return pick([0, -1, 1.5, 1e308, -0, 2 ** 53 + 1, int(100)]);
      case 3:
        return pick(STRINGS);
      case 4:
        return 'x'.repeat(int(2) ? int(50) : 5000);
      case 5:
        return Array.from({ length: int(4) }, () => value(depth + 1));
      case 6:
        return Object.fromEntries(Array.from({ length: int(4) }, () => [pick(KEYS), value(depth + 1)]));
      default:
        return { [pick(KEYS)]: value(depth + 1) };
    }
  }

  function nested(depth, leaf) {
    let v = leaf;
    for (let i = 0; i < depth; i++) v = random() < 0.5 ? [v] : { [pick(KEYS)]: v };
    return v;
  }

  /** A random container inside `root` and a key of it (or undefined for an empty walk). */
  function spot(root) {
    let parent;
    let key;
    let current = root;
    for (let steps = int(6); steps >= 0; steps--) {
      if (current === null || typeof current !== 'object') break;
      const keys = Array.isArray(current) ? Array.from({ length: current.length }, (_, i) => i) : Object.keys(current);
      if (keys.length === 0) break;
      parent = current;
      key = pick(keys);
      current = current[key];
    }
    return parent === undefined ? undefined : { parent, key };
  }

  function mutate(root) {
    const at = spot(root);
    if (!at) return { [pick(KEYS)]: value() };
    const { parent, key } = at;
    const old = parent[key];
    switch (int(10)) {
      case 0:
        if (Array.isArray(parent)) parent.splice(key, 1);
        else delete parent[key];
        break;
      case 1:
        parent[key] = value();
        break;
      case 2:
        parent[key] = Array.isArray(old) ? Object.assign({}, old) : [old];
        break;
      case 3:
        parent[key] =
          typeof old === 'string'
            ? old.repeat(1 + int(Math.max(1, 20_000 / (old.length + 1))))
            : (JSON.stringify(old) ?? '');
        break;
      case 4:
        parent[key] =
          Array.isArray(old) && old.length > 0
            ? Array.from({ length: 1 + int(2000) }, () => structuredClone(pick(old)))
            : [];
        break;
      case 5:
        parent[key] = nested(10 + int(120), old ?? null);
        break;
      case 6:
        if (!Array.isArray(parent))
          Object.defineProperty(parent, pick(KEYS), {
            value: value(),
            enumerable: true,
            configurable: true,
            writable: true,
          });
        break;
      case 7:
        parent[key] = typeof old === 'string' ? old.slice(0, int(old.length + 1)) + pick(STRINGS) : pick(STRINGS);
        break;
      case 8:
        parent[key] = typeof old === 'number' ? -old : int(2) ? {} : null;
        break;
      default:
        if (Array.isArray(old)) old.reverse();
        else parent[key] = undefined; // dropped by JSON
    }
    return root;
  }

  function textMutate(text) {
    const at = int(text.length + 1);
    switch (int(5)) {
      case 0:
        return text.slice(0, at);
      case 1:
        return (
          text.slice(0, at) + pick(['{', '}', '[', ']', '"', ',', ':', '\\', '\u0000', 'NaN', '1e999']) + text.slice(at)
        );
      case 2:
        return text.slice(0, at) + text.slice(at + 1 + int(20));
      case 3:
        return `\ufeff${text}`;
      default:
        return `${text}${pick(['', ' ', '{}', '\n]'])}`;
    }
  }

  return { int, pick, value, mutate, textMutate };
}

/**
 * `count` card texts, deterministic for a `seed`: about 70 % mutated fixtures, 15 % mutated as
 * text, 15 % generated from scratch.
 * @param {unknown[]} fixtures parsed real cards
 */
export function* fuzzCases(fixtures, count, seed = 1) {
  const random = prng(seed);
  const t = tools(random);
  for (let i = 0; i < count; i++) {
    const roll = random();
    if (roll < 0.15) {
      yield JSON.stringify(Object.fromEntries(Array.from({ length: 1 + t.int(8) }, () => [t.pick(KEYS), t.value()])));
      continue;
    }
    let card = structuredClone(t.pick(fixtures));
    for (let n = 1 + t.int(4); n > 0; n--) card = t.mutate(card);
    const text = JSON.stringify(card) ?? 'null';
    yield roll < 0.3 ? t.textMutate(text) : text;
  }
}

const PROFILE = {
  bindings: ['JSONRPC', 'HTTP+JSON', 'GRPC'],
  versions: ['1.0', '0.3', '0.2'],
  accepts: ['application/json', 'text/plain'],
  sends: ['text/plain'],
  streaming: true,
  pushEndpoint: 'https://client.example/hook',
  extensions: [],
};

/**
 * Read one card text the way a2a-lock reads a served card, then negotiate its first skills and
 * hash it (what `a2a lock` does next). Returns `"ok"` or the typed error's code; anything else
 * (a crash: TypeError, RangeError, an untyped throw) is rethrown.
 * @param {{ readCardText: Function, negotiate: Function, integrityOf: Function, isA2aLockError: Function }} lib
 * @param {string} text
 */
export function readFuzzCard(lib, text) {
  try {
    const { card } = lib.readCardText(text, { source: 'fuzz.json', baseUrl: 'https://agent.example/' });
    for (const skill of card.skills.slice(0, 3)) lib.negotiate(card, skill.id, PROFILE, ['bearer']);
    // The reader skips a UTF-8 byte-order mark (parseJson); so does the snapshot it hashes.
    lib.integrityOf(JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text));
    return 'ok';
  } catch (error) {
    if (lib.isA2aLockError(error)) return error.code;
    throw error;
  }
}
