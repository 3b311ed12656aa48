/**
 * Small helpers the signature modules share for reading untrusted JSON and describing it in
 * one-line messages: a value's JSON type in words, and an error's message.
 * Pure.
 */

/** The JSON type of `value` with its article, for messages: `null`, `an array`, `an object`, `a string`. */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' || typeof value === 'undefined' ? `an ${typeof value}` : `a ${typeof value}`;
}

/** The message of a thrown value (an `Error`'s message, else its string form). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
