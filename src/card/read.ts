/**
 * Reading card JSON text as a served card is read: the size and nesting limits every card gets,
 * then validation and normalisation. Pure (no I/O); the card reader the fuzz drives.
 */
import { InvalidInputError } from '../errors.js';
import { parseJson } from '../json-document.js';
import { formatPath, MAX_JSON_DEPTH, protoKeyPath, tooDeep } from '../json-path.js';
import { type CardSource, type NormalizeResult, normalizeCard } from './normalize.js';

/** Cards larger than this are refused, fetched or read from a file (bytes). */
export const MAX_CARD_BYTES = 1_048_576;

/**
 * Refuse a card nested deeper than {@link MAX_JSON_DEPTH} levels before anything walks it
 * recursively, and a card holding a `__proto__` key at any depth: an object-literal copy (zod's
 * records, spread) drops or re-parents it, so a snapshot holding one would not hash to its own
 * integrity once the lockfile is read back. Every card read (fetched, extended, from a file) passes here.
 * @throws InvalidInputError `card-invalid` naming the path where the limit is crossed, or of the key
 */
export function assertShallow(value: unknown, source: string): void {
  const path = tooDeep(value, MAX_JSON_DEPTH);
  if (path)
    throw new InvalidInputError('card-invalid', source, `nested deeper than ${MAX_JSON_DEPTH} levels`, {
      path: formatPath(path),
    });
  const proto = protoKeyPath(value);
  if (proto)
    throw new InvalidInputError(
      'card-invalid',
      source,
      'the key "__proto__" is not allowed in a card (it would not survive in the lockfile)',
      { path: formatPath(proto) },
    );
}

/**
 * Parse card text: refuse nesting deeper than {@link MAX_JSON_DEPTH} and anything but a JSON object.
 * @throws InvalidInputError `card-invalid` naming `source`
 */
export function parseCardJson(text: string, source: string): Record<string, unknown> {
  const raw = parseJson(text, source, 'card-invalid');
  assertShallow(raw, source);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new InvalidInputError('card-invalid', source, 'card is not a JSON object');
  }
  return raw as Record<string, unknown>;
}

/**
 * Read card JSON text as a served card is read: refuse more than {@link MAX_CARD_BYTES} bytes of
 * UTF-8, parse, refuse nesting deeper than {@link MAX_JSON_DEPTH}, validate and normalise.
 * @throws InvalidInputError `card-invalid` naming `from.source` (and the JSON path where known)
 * @internal
 */
export function readCardText(text: string, from: CardSource): NormalizeResult {
  if (new TextEncoder().encode(text).length > MAX_CARD_BYTES)
    throw new InvalidInputError('card-invalid', from.source, `card larger than ${MAX_CARD_BYTES} bytes`);
  const raw = parseJson(text, from.source, 'card-invalid');
  assertShallow(raw, from.source);
  return normalizeCard(raw, from);
}
