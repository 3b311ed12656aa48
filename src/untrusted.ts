/**
 * Untrusted text (from a card, an agent or a pull request), bounded and made inert: {@link bounded}
 * cuts it by code points, and {@link UNTRUSTED} names the characters that can change what a terminal
 * shows beyond the text itself, one definition for every output: C0 and C1 control characters and DEL (ESC starts colour, cursor movement, a window
 * title; a newline forges a line), bidi controls (U+061C, U+200E/U+200F, U+202A–U+202E,
 * U+2066–U+2069: a right-to-left override shows text in another order than it is read) and the
 * line and paragraph separators U+2028/U+2029. Pure.
 */

/** One untrusted character (see the module comment); global. */
export const UNTRUSTED = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** An SGR colour sequence (`ESC [ … m`) or one {@link UNTRUSTED} character; global. */
export const SGR_OR_UNTRUSTED = new RegExp(`\\x1b\\[[0-9;]*m|${UNTRUSTED.source}`, 'g');

/**
 * `text` cut to `max` characters (code points), the last one `…`, when longer. Walks code point by
 * code point only as far as needed (a field may be a megabyte long).
 */
export function bounded(text: string, max: number): string {
  if (text.length <= max) return text;
  let count = 0;
  let end = 0;
  for (const point of text) {
    if (++count === max) {
      // `point` is the max-th code point: the text fits when nothing follows it.
      return end + point.length === text.length ? text : `${text.slice(0, end)}…`;
    }
    end += point.length;
  }
  return text;
}

/** `\uXXXX` for one character (a UTF-16 code unit). */
export function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
