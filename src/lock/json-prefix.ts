/**
 * What a JSON text cut short says, as far as it was read: for an answer read to a byte bound (the
 * wire probe's), whose end is missing. Read so that no verdict turns on the cut: what the whole
 * text's reading refuses (a key repeated in one object, anything but whitespace after the value)
 * is refused in the part read too. Values in, values out.
 */

/** Containers deeper than this are not read: the text is said to be unreadable (undefined). */
const MAX_DEPTH = 256;

const DELIMITERS = new Set([',', '}', ']', ' ', '\t', '\n', '\r']);
/** JSON's whitespace (RFC 8259 §2): nothing else may come before or after the value. */
const WHITESPACE = /^[ \t\n\r]*$/;

/**
 * The object or array a JSON text cut short begins with, holding what was read whole before the
 * cut: each container still open at the cut is closed there, with the members and elements that
 * ended before it (a member whose value the cut runs into is left out: a string without its closing
 * quote, a number or literal not yet followed by a delimiter, a key without its value). A whole
 * text without a repeated key reads as `JSON.parse` reads it.
 * @returns the value, or undefined when the text does not begin with `{` or `[` (after
 *   whitespace), is not JSON before the cut, holds a key twice in one object (a key whose value the
 *   cut runs into counts: `JSON.parse` keeps the last, which the cut may hide), goes on after its
 *   value closed with anything but whitespace, or nests deeper than {@link MAX_DEPTH}
 */
export function jsonPrefix(text: string): unknown {
  const start = text.length - text.replace(/^[ \t\n\r]+/, '').length;
  if (text[start] !== '{' && text[start] !== '[') return undefined;
  const end = lastWholePoint(text, start);
  if (end === undefined) return undefined;
  try {
    return JSON.parse(text.slice(0, end.at) + end.closers);
  } catch {
    return undefined;
  }
}

/** An open container: its closing character, whether the next string in it is a member's key, and an object's keys so far. */
interface Frame {
  close: '}' | ']';
  keyNext: boolean;
  keys?: Set<string>;
}

/**
 * The last point of `text` at which every value before it ended whole (right after a container
 * opened or a member or element ended), with the characters that close the containers open there;
 * undefined when a container nests deeper than {@link MAX_DEPTH}, an object holds a key twice, or
 * anything but whitespace follows the first container's close. The scan follows JSON's structure
 * only: what lies between the points is checked by `JSON.parse`.
 */
function lastWholePoint(text: string, start: number): { at: number; closers: string } | undefined {
  const stack: Frame[] = [];
  let at = start;
  let depthAt = 0;
  const whole = (i: number) => {
    at = i;
    depthAt = stack.length;
  };
  let i = start;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '{' || c === '[') {
      if (stack.length >= MAX_DEPTH) return undefined;
      stack.push(c === '{' ? { close: '}', keyNext: true, keys: new Set() } : { close: ']', keyNext: false });
      whole(++i);
    } else if (c === '}' || c === ']') {
      stack.pop();
      i++;
      if (stack.length === 0) return WHITESPACE.test(text.slice(i)) ? { at: i, closers: '' } : undefined;
      whole(i);
    } else if (c === '"') {
      const close = stringEnd(text, i);
      if (close === undefined) break;
      const frame = stack.at(-1);
      if (frame?.keyNext) {
        frame.keyNext = false;
        const key = keyOf(text.slice(i, close));
        if (key === undefined || frame.keys?.has(key)) return undefined;
        frame.keys?.add(key);
      } else whole(close);
      i = close;
    } else if (c === ',') {
      const frame = stack.at(-1);
      if (frame?.close === '}') frame.keyNext = true;
      i++;
    } else if (c === ':' || c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else {
      // A number or a literal: whole once a delimiter follows it.
      while (i < text.length && !DELIMITERS.has(text[i]!)) i++;
      if (i < text.length) whole(i);
    }
  }
  const closers = stack
    .slice(0, depthAt)
    .map((frame) => frame.close)
    .reverse()
    .join('');
  return { at, closers };
}

/** A member's key from its JSON string literal (quotes included), escapes decoded; undefined when not a JSON string. */
function keyOf(literal: string): string | undefined {
  if (!literal.includes('\\')) return literal.slice(1, -1);
  try {
    return JSON.parse(literal) as string;
  } catch {
    return undefined;
  }
}

/** The index just past the string that opens at `i` (a `"`), or undefined when the text ends inside it. */
function stringEnd(text: string, i: number): number | undefined {
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === '"') return j + 1;
  }
  return undefined;
}
