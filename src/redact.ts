/**
 * Redaction: every spelling a credential can be echoed in (percent-, form-, JSON-, base64- and
 * hex-encoded, reversed, cut into Basic's `user:password`), and the redactors that take them out
 * of text, errors and events before anything is printed, logged or thrown. Pure. The Python runtime's
 * python/src/a2a_lock/redact.py is the same definition (conformance/vectors/oauth-token-errors.json holds both).
 */
import { base64, fromBase64, hex, shifted, utf8 } from './bytes.js';
import type { CredentialPlacement } from './credentials.js';

/**
 * Every string a credential value can be found as in a server's echo (A2A agents quote request
 * URLs and headers in their errors): the value itself; percent-encoded (`encodeURIComponent`, and
 * encoded twice), form-encoded (`application/x-www-form-urlencoded`: space as `+`), JSON-escaped;
 * base64 and base64url of it, as a whole and as the run of characters that encodes only its bytes
 * at each of the three byte alignments (so it is found inside a longer encoding, such as Basic
 * `base64(user:password)`); hex of its bytes; the value reversed. Case is not part of a spelling:
 * {@link redactSecrets} matches every
 * one case-insensitively (a lower-cased echo, `%2f` for `%2F`). Derived spellings shorter than 4
 * characters are left out (they would mask ordinary text); the value itself always counts.
 */
function secretSpellings(secret: string): string[] {
  if (secret === '') return [];
  const out = new Set<string>([secret]);
  const add = (text: string) => {
    if (text.length >= 4) out.add(text);
  };
  const percent = encodeURIComponent(secret);
  add(percent);
  add(encodeURIComponent(percent));
  add(new URLSearchParams({ x: secret }).toString().slice(2));
  add(percent.replace(/%20/g, '+'));
  add(JSON.stringify(secret).slice(1, -1));
  const bytes = utf8(secret);
  // Hex of its bytes (matched ignoring case, so upper-case hex too), and the secret reversed: both
  // seen in agents' error echoes by an attack run.
  add(hex(bytes));
  add([...secret].reverse().join(''));
  for (const alphabet of ['base64', 'base64url'] as const) {
    add(base64(bytes, alphabet));
    for (const shift of [0, 1, 2]) {
      const encoded = base64(shifted(bytes, shift), alphabet);
      const core = encoded.slice(shift === 0 ? 0 : 4, Math.floor((shift + bytes.length) / 3) * 4);
      if (core.length >= 8) out.add(core);
    }
  }
  return [...out];
}

/**
 * The secrets a set of placements puts on a request, as {@link redactSecrets} takes them: each
 * header, query and cookie value; the credentials part of `<auth-scheme> <credentials>` alone; and
 * for Basic the decoded `user:password` and the password alone.
 */
export function placementSecrets(placements: readonly CredentialPlacement[]): string[] {
  const out = new Set<string>();
  for (const p of placements) {
    for (const value of [...Object.values(p.headers), ...Object.values(p.query), ...Object.values(p.cookies)]) {
      out.add(value);
      const parts = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\s+(.+)$/.exec(value);
      if (parts?.[1] && parts[1].length >= 4) out.add(parts[1]);
      const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(value);
      if (basic?.[1]) {
        const decoded = fromBase64(basic[1]);
        out.add(decoded);
        const password = decoded.slice(decoded.indexOf(':') + 1);
        if (password.length >= 4) out.add(password);
      }
    }
  }
  return [...out].filter((s) => s.length > 0);
}

/**
 * The shortest run of a secret's characters that counts as an echo of it when an agent cuts the
 * secret short ({@link redactSecrets}): a run this long that starts (or ends) a secret, in any
 * spelling. Secrets no longer than this are matched whole only.
 */
const PARTIAL_SECRET_MIN = 12;

/**
 * A spelling of a secret as a sequence of units, each unit the spelling of a stretch of the
 * secret, and how many leading (or trailing) units cover {@link PARTIAL_SECRET_MIN} characters of
 * it: a run of whole units that starts (ends) the spelling and is at least `min` units long is an
 * echo of a cut-short secret.
 */
interface UnitSpelling {
  units: string[];
  min: number;
}

/**
 * The unit spellings of `secret` ({@link UnitSpelling}): per character, the value itself, each
 * encoding of {@link secretSpellings} that maps character by character (percent-encoded, once and
 * twice; form-encoded; JSON-escaped; hex of the bytes) and the value reversed; and base64 and
 * base64url in whole 4-character groups (3 bytes each) at each of the three byte alignments.
 * Empty for a secret of at most {@link PARTIAL_SECRET_MIN} characters.
 */
function unitSpellings(secret: string): UnitSpelling[] {
  const chars = [...secret];
  if (chars.length <= PARTIAL_SECRET_MIN) return [];
  const out: UnitSpelling[] = [];
  const perChar: Array<(c: string) => string> = [
    (c) => c,
    (c) => encodeURIComponent(c),
    (c) => encodeURIComponent(encodeURIComponent(c)),
    (c) => new URLSearchParams({ x: c }).toString().slice(2),
    (c) => encodeURIComponent(c).replace(/%20/g, '+'),
    (c) => JSON.stringify(c).slice(1, -1),
    (c) => hex(utf8(c)),
  ];
  const seen = new Set<string>();
  for (const spell of perChar) {
    let units: string[];
    try {
      units = chars.map(spell);
    } catch {
      continue; // a lone surrogate: no percent-encoding of it exists
    }
    const key = units.join('\u0000');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ units, min: PARTIAL_SECRET_MIN });
  }
  out.push({ units: [...chars].reverse(), min: PARTIAL_SECRET_MIN });
  const bytes = utf8(secret);
  for (const alphabet of ['base64', 'base64url'] as const) {
    for (const shift of [0, 1, 2]) {
      const encoded = base64(shifted(bytes, shift), alphabet);
      const core = encoded.slice(shift === 0 ? 0 : 4, Math.floor((shift + bytes.length) / 3) * 4);
      const units = core.match(/.{4}/g) ?? [];
      if (units.length > PARTIAL_SECRET_MIN / 3) out.push({ units, min: PARTIAL_SECRET_MIN / 3 });
    }
  }
  return out.filter((u) => u.units.length > u.min);
}

/** One seed of a partial echo: the first (or last) `min` units of a unit spelling, extended by whole units as far as the text goes. */
interface Seed {
  spelling: UnitSpelling;
  /** True: the seed starts the spelling (extend forward); false: it ends it (extend backward). */
  start: boolean;
}

/** A compiled redaction for one list of secrets: one pattern, and the partial-echo seeds by their lower-case text. */
interface Redactor {
  pattern: RegExp;
  seeds: Map<string, Seed[]>;
}

/** Redactors by their secrets (joined with NUL): redaction runs on every output, so each list is compiled once. */
const redactors = new Map<string, Redactor>();

function redactorFor(secrets: readonly string[]): Redactor | undefined {
  const key = secrets.join('\u0000');
  const cached = redactors.get(key);
  if (cached) return cached;
  const seeds = new Map<string, Seed[]>();
  const alternatives = new Set(secrets.flatMap(secretSpellings));
  for (const spelling of secrets.flatMap(unitSpellings)) {
    const { units, min } = spelling;
    for (const [text, start] of [
      [units.slice(0, min).join(''), true],
      [units.slice(-min).join(''), false],
    ] as const) {
      alternatives.add(text);
      const lower = text.toLowerCase();
      seeds.set(lower, [...(seeds.get(lower) ?? []), { spelling, start }]);
    }
  }
  if (alternatives.size === 0) return undefined;
  const sorted = [...alternatives].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(sorted.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'giu');
  const redactor = { pattern, seeds };
  if (redactors.size >= 64) redactors.clear();
  redactors.set(key, redactor);
  return redactor;
}

/** Whether `text` holds `unit` at `at`, ignoring case. */
function unitAt(text: string, at: number, unit: string): boolean {
  return at >= 0 && text.slice(at, at + unit.length).toLowerCase() === unit.toLowerCase();
}

/**
 * `text` with every spelling ({@link secretSpellings}) of every secret replaced by `***`, matched
 * case-insensitively, longest first; and, for a secret longer than {@link PARTIAL_SECRET_MIN}
 * characters, every run of at least that many of its characters that starts or ends it (an agent
 * that echoes all but the last few characters), raw or in any of those spellings. For text that
 * may quote a credential: an agent's error message, an SDK error built from the agent's answer.
 * One compiled pattern per list of secrets (cached), one pass over `text`.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  if (secrets.length === 0 || text === '') return text;
  const redactor = redactorFor(secrets);
  if (!redactor) return text;
  const { pattern, seeds } = redactor;
  let out = '';
  let done = 0;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    let from = m.index;
    let to = from + m[0].length;
    for (const { spelling, start } of seeds.get(m[0].toLowerCase()) ?? []) {
      const { units, min } = spelling;
      if (start) {
        let end = from + m[0].length;
        for (let i = min; i < units.length && unitAt(text, end, units[i]!); i++) end += units[i]!.length;
        to = Math.max(to, end);
      } else {
        let begin = m.index;
        for (
          let i = units.length - min - 1;
          i >= 0 && begin - units[i]!.length >= done && unitAt(text, begin - units[i]!.length, units[i]!);
          i--
        )
          begin -= units[i]!.length;
        from = Math.min(from, begin);
      }
    }
    out += `${text.slice(done, from)}***`;
    done = to;
    pattern.lastIndex = to;
  }
  return done === 0 ? text : out + text.slice(done);
}

/** The refusal of a card that {@link quotesSecret}: said without the value. */
export const QUOTES_CREDENTIAL =
  'the card quotes a credential (one its request carried, or one a2a.json names: the agent or a gateway echoed it): refused, so it is neither written to the lockfile nor shown';

/**
 * Whether the JSON document `value` (a card as served) holds one of `secrets` (those of at least 8
 * characters; a shorter one could occur in any text by chance) in any spelling or cut short
 * ({@link redactSecrets}): an agent or gateway that echoed the credential its request carried. A
 * document too deep to print is left to the depth check that refuses it.
 */
export function quotesSecret(value: unknown, secrets: readonly string[]): boolean {
  const searched = secrets.filter((secret) => secret.length >= 8);
  if (searched.length === 0) return false;
  let text: string;
  try {
    text = JSON.stringify(value) ?? '';
  } catch {
    return false;
  }
  return redactSecrets(text, searched) !== text;
}

/**
 * A copy of `value` (an error and its `cause` chain, or any plain data) in which every string
 * is {@link redactSecrets}-ed: own properties of errors, plain objects and arrays are walked
 * (message, stack, cause, data, response text; non-enumerable ones too), to a depth of 8; the copy
 * of an error keeps its prototype (so `instanceof` and `name` still hold). Other objects (class
 * instances with internal state) are kept as they are. `value` itself when nothing changed.
 */
export function redactError<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const copies = new Map<object, unknown>();
  let changed = false;
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') {
      const r = redactSecrets(v, secrets);
      if (r !== v) changed = true;
      return r;
    }
    if (typeof v !== 'object' || v === null || depth > 8) return v;
    const proto = Object.getPrototypeOf(v) as object | null;
    if (!(v instanceof Error) && !Array.isArray(v) && proto !== Object.prototype && proto !== null) return v;
    if (copies.has(v)) return copies.get(v);
    const copy: object = Array.isArray(v) ? [] : Object.create(proto);
    copies.set(v, copy);
    for (const key of Reflect.ownKeys(v)) {
      const descriptor = Object.getOwnPropertyDescriptor(v, key)!;
      if ('value' in descriptor) descriptor.value = walk(descriptor.value, depth + 1);
      Object.defineProperty(copy, key, descriptor);
    }
    return copy;
  };
  const copy = walk(value, 0);
  return changed ? (copy as T) : value;
}
