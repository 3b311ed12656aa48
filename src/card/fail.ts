/** Shared by the card readers: how a reading step refuses the card (throws, naming the JSON path). */
import { type Format, parseFormat, zodMessage } from '../json-document.js';

/** Refuse the card at `path` (relative to the card) with `message`; never returns. */
export type Fail = (path: ReadonlyArray<PropertyKey>, message: string) => never;

/** Parse `value` with a format's schema, or fail at the path of its first issue. */
export function parseWith<T>(format: Format<T>, value: unknown, fail: Fail): T {
  const parsed = parseFormat(format, value);
  if ('data' in parsed) return parsed.data;
  fail(parsed.issue.path, zodMessage(parsed.issue));
  throw new Error('unreachable');
}
