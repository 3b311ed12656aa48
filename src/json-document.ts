/**
 * Parsing the JSON documents we read (manifest, lockfile, profile, card files) with one-line errors
 * that name the file, the line and column, or the JSON path. Pure: text in, values out; the files
 * are read in `fs/`.
 */
import type { z } from 'zod/mini';
import { InvalidInputError } from './errors.js';
import { formatPath } from './json-path.js';

/** The error code a document's problems are reported under. */
export type DocCode = 'manifest-invalid' | 'profile-invalid' | 'lockfile-invalid' | 'card-invalid';

/** How {@link parseJson} reads a document. */
export interface ParseOptions {
  /**
   * Refuse an object holding the same key twice (`JSON.parse` keeps the last, so a reviewer could
   * read one entry while the tool uses another). For our own files (manifest, lockfile, profile);
   * cards are read as JSON reads them.
   */
  uniqueKeys?: boolean;
}

/** Whether `text` holds git merge-conflict markers: a line starting `<<<<<<< ` and one starting `>>>>>>> `. */
export function hasConflictMarkers(text: string): boolean {
  // includes() first: the multiline regexes read a 3 MB lockfile in ~5 ms cold (docs/explanation/performance.md).
  return text.includes('<<<<<<< ') && /^<{7} /m.test(text) && /^>{7} /m.test(text);
}

/**
 * Parse JSON text, turning a syntax error into a one-line error with line and column; with
 * `uniqueKeys`, a key repeated in one object is an error naming its JSON path and line.
 * @throws InvalidInputError
 */
export function parseJson(text: string, source: string, code: DocCode, options: ParseOptions = {}): unknown {
  // A UTF-8 byte-order mark (some editors save one) is not JSON's business: skip it, as npm does.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    // Node 20 gives no position for a document that ends early; that position is its end.
    const pos =
      /position (\d+)/.exec(message) ??
      (/end of JSON input/.test(message) ? [undefined, String(text.trimEnd().length)] : null);
    let where = '';
    if (pos) {
      const offset = Number(pos[1]);
      const before = text.slice(0, offset).split('\n');
      where = ` at line ${before.length} column ${before[before.length - 1]!.length + 1}`;
    }
    const conflict = hasConflictMarkers(text);
    const reason =
      text.trim() === ''
        ? 'empty file'
        : conflict
          ? `git merge conflict markers${where}: resolve the conflict`
          : `invalid JSON${where}`;
    throw new InvalidInputError(code, source, reason, { cause: error });
  }
  if (options.uniqueKeys && !isIndentedJson(value, text)) {
    const duplicate = duplicateKey(text);
    if (duplicate) {
      const key = duplicate.path[duplicate.path.length - 1]!;
      throw new InvalidInputError(
        code,
        source,
        `duplicate key ${JSON.stringify(key)} at line ${duplicate.line}: a key may appear once in an object`,
        { path: formatPath(duplicate.path) },
      );
    }
  }
  return value;
}

/**
 * True when `text` is exactly `JSON.stringify(value, null, 2)`, with or without a final newline: the
 * form of the files we write. JSON.stringify writes each key of an object once, so such text holds
 * no repeated key and {@link duplicateKey} need not read it (its native serialisation is several
 * times faster than the scan on a cold start: docs/explanation/performance.md).
 */
function isIndentedJson(value: unknown, text: string): boolean {
  // That form opens a non-empty object or array with a line break: compact text, CRLF text and a
  // scalar are scanned without serialising them first.
  if (text.charCodeAt(1) !== 0x0a) return false;
  let written: string;
  try {
    written = JSON.stringify(value, null, 2);
  } catch {
    // Nested too deep for JSON.stringify's recursion: the scan, which keeps its own stack, reads it.
    return false;
  }
  const end = text.endsWith('\n') ? text.length - 1 : text.length;
  return written.length === end && text.startsWith(written);
}

/**
 * The index of the quote that closes the JSON string opening at `open` in valid JSON text: the next
 * `"` not escaped by an odd run of backslashes.
 */
function closingQuote(text: string, open: number): number {
  let end = open;
  for (;;) {
    end = text.indexOf('"', end + 1);
    let slashes = 0;
    while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return end;
  }
}

/**
 * What {@link scanKeys} calls for each key read at offset `at` (its opening quote): `path` is the
 * JSON path of its value, the key last (the array is reused: copy it to keep it), and `object`
 * numbers the object holding it (each object its own number, in document order). Return `true` to
 * stop the scan.
 */
type KeyVisitor = (
  path: ReadonlyArray<string | number>,
  key: string,
  at: number,
  object: number,
) => boolean | undefined;

/**
 * Every object key of `text` (valid JSON: `JSON.parse` accepted it), in document order, with its
 * JSON path. One pass, aware of strings and nesting, with an explicit stack (no recursion, however
 * deep the document). It jumps from string to string (`indexOf`), reading only the structure
 * between them: a raw newline cannot occur inside a JSON string (docs/explanation/performance.md).
 */
function scanKeys(text: string, visit: KeyVisitor): void {
  // Per open container: the number of the object (-1 for an array); `path` holds, per container,
  // the key or index of the value being read in it.
  const objects: number[] = [];
  const path: Array<string | number> = [];
  let count = 0;
  let expectKey = false;
  const n = text.length;
  for (let i = 0; i < n; ) {
    const quote = text.indexOf('"', i);
    const stop = quote < 0 ? n : quote;
    // The structure between two strings: brackets, commas, colons, numbers, literals, whitespace.
    for (let j = i; j < stop; j++) {
      const c = text.charCodeAt(j);
      if (c === 0x7b) {
        objects.push(count++);
        path.push('');
        expectKey = true;
      } else if (c === 0x5b) {
        objects.push(-1);
        path.push(0);
      } else if (c === 0x7d || c === 0x5d) {
        objects.pop();
        path.pop();
        expectKey = false;
      } else if (c === 0x2c) {
        if (objects[objects.length - 1] === -1) (path[path.length - 1] as number)++;
        else expectKey = true;
      }
    }
    if (quote < 0) break;
    const end = closingQuote(text, quote);
    if (expectKey) {
      const raw = text.slice(quote + 1, end);
      const key = raw.includes('\\') ? (JSON.parse(text.slice(quote, end + 1)) as string) : raw;
      path[path.length - 1] = key;
      if (visit(path, key, quote, objects[objects.length - 1]!)) return;
      expectKey = false;
    }
    i = end + 1;
  }
}

/**
 * The first key that appears twice in one object of `text` (valid JSON: `JSON.parse` accepted it),
 * with its JSON path and 1-based line; undefined when every key is unique. One {@link scanKeys}
 * pass; lines are counted only for the error.
 */
export function duplicateKey(text: string): { path: Array<string | number>; line: number } | undefined {
  // Per depth: the object last read there and its keys so far (a new object at a depth starts anew).
  const owners: number[] = [];
  const keys: Array<Set<string>> = [];
  let found: { path: Array<string | number>; line: number } | undefined;
  scanKeys(text, (path, key, at, object) => {
    const depth = path.length;
    if (owners[depth] !== object) {
      owners[depth] = object;
      keys[depth] = new Set();
    }
    const seen = keys[depth]!;
    if (seen.has(key)) {
      found = { path: [...path], line: lineAt(text, at) };
      return true;
    }
    seen.add(key);
    return undefined;
  });
  return found;
}

/**
 * The 1-based line of each of `names` as a key of the top-level member `member` of `text` (valid
 * JSON), e.g. each agent's key under `"agents"` in a manifest or a lockfile, however the file is
 * laid out; a name that is not there is left out. One {@link scanKeys} pass, stopping once past
 * `member`'s keys.
 */
export function memberLines(text: string, member: string, names: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  const wanted = new Set(names);
  if (wanted.size === 0) return out;
  let line = 1;
  let counted = 0;
  let inside = false;
  scanKeys(text, (path, key, at) => {
    // Past the member's keys (the next top-level key): nothing after it is wanted.
    if (inside && path[0] !== member) return true;
    if (path.length !== 2 || path[0] !== member) return undefined;
    inside = true;
    if (!wanted.has(key) || Object.hasOwn(out, key)) return undefined;
    for (let i = text.indexOf('\n', counted); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) line++;
    counted = at;
    out[key] = line;
    return undefined;
  });
  return out;
}

/** The 1-based line of offset `at` in `text`. */
function lineAt(text: string, at: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * A document format: its zod schema, the one definition of the format and its one parser, built on
 * the first call (see {@link once}).
 */
export type Format<T> = () => z.ZodMiniType<T, unknown>;

/** `build`'s value, built on the first call and kept (a format's zod schemas, built on first use). */
export function once<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}

/**
 * Parse a value with a {@link Format}'s zod schema.
 * @returns the parsed value, or the schema's first issue
 */
export function parseFormat<T>(format: Format<T>, value: unknown): { data: T } | { issue: z.core.$ZodIssue } {
  const result = format().safeParse(value, { reportInput: true });
  return result.success ? { data: result.data } : { issue: result.error.issues[0]! };
}

/**
 * Validate a parsed document with its {@link Format}; the first issue becomes the error, naming its JSON path.
 * @throws InvalidInputError
 */
export function validate<T>(format: Format<T>, value: unknown, source: string, code: DocCode): T {
  const parsed = parseFormat(format, value);
  if ('data' in parsed) return parsed.data;
  const { issue } = parsed;
  throw new InvalidInputError(code, source, zodMessage(issue, { showValues: false }), { path: formatPath(issue.path) });
}

/** One short line for a zod issue, e.g. "expected string, got null". */
export function zodMessage(issue: z.core.$ZodIssue, options: { showValues?: boolean } = {}): string {
  if (issue.code === 'invalid_type') {
    const got = (issue as { input?: unknown }).input;
    // Values are shown for cards (public documents); never for our own files, where a pasted secret may sit.
    const value = options.showValues === false ? '' : ` ${JSON.stringify(got)?.slice(0, 40)}`;
    const gotType =
      got === undefined
        ? 'nothing (missing)'
        : got === null
          ? 'null'
          : Array.isArray(got)
            ? 'an array'
            : `${typeof got}${value}`;
    return `expected ${issue.expected}, got ${gotType}`;
  }
  if (issue.code === 'invalid_union') {
    // A value of the wrong type for every alternative (a string where objects go): that, as for one schema.
    const firsts = issue.errors.map((e) => e[0]);
    if (firsts.length > 0 && firsts.every((f) => f?.code === 'invalid_type' && f.path.length === 0))
      return zodMessage(firsts[0]!, options);
    // A union given its own message (the manifest's credential source) says it.
    if (issue.message !== 'Invalid input') return issue.message;
    // The only other union, in the card schemas, is a security requirement.
    return 'not a security requirement: expected {"schemes": {"<name>": {"list": [scopes]}}} (A2A 1.0) or {"<name>": [scopes]} (A2A 0.3)';
  }
  if (issue.code === 'invalid_key') return `invalid key: ${issue.issues.map((i) => i.message).join('; ')}`;
  if (issue.code === 'unrecognized_keys')
    return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  return issue.message.replace(/^Invalid input: /, '');
}
