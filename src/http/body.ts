/**
 * Reading a response body safely: the JSON object a request asked for (content type, size limit,
 * UTF-8, JSON, an object), or an unwanted body dropped without leaking the socket or an error.
 */

import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { InvalidInputError } from '../errors.js';
import { type FailedRequest, networkError } from './errors.js';
import { oneLine } from './url-policy.js';

/** How much of a redirect or error body we read to keep the socket reusable before giving up on it. */
const DRAIN_LIMIT_BYTES = 64 * 1024;

/** The request whose body {@link readJson} reads: what its errors say, and its body limit. */
export interface BodyRequest extends FailedRequest {
  /** Body limit in bytes, checked against `Content-Length` and against the bytes read. */
  maxBytes: number;
}

/**
 * Read, check and parse a JSON object body. Destroys the stream on any early exit.
 * @param shown The URL as printed, for errors.
 * @returns The parsed body: always a non-array object.
 * @throws {InvalidInputError} `card-invalid`: a content type other than JSON (`application/json`,
 *   `application/*+json`, or none), over `request.maxBytes`, invalid UTF-8, empty, invalid JSON, or
 *   JSON that is not an object.
 * @throws {FetchError} when reading the body fails ({@link networkError}: `timeout` or `unreachable`).
 */
export async function readJson(
  shown: string,
  response: Dispatcher.ResponseData,
  request: BodyRequest,
): Promise<unknown> {
  const { headers, body } = response;

  const contentType = headerValue(headers, 'content-type');
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (
    mediaType !== '' &&
    mediaType !== 'application/json' &&
    !/^application\/[a-z0-9!#$&^_.+-]+\+json$/.test(mediaType)
  ) {
    discard(body);
    // Show the media type only when it is a plain type/subtype token (never an arbitrary header value).
    const what = /^[a-z0-9!#$&^_.+-]{1,64}\/[a-z0-9!#$&^_.+-]{1,64}$/.test(mediaType)
      ? mediaType
      : 'a non-JSON content type';
    throw new InvalidInputError('card-invalid', shown, `served ${what}, not JSON`);
  }

  const tooLarge = (): InvalidInputError =>
    new InvalidInputError('card-invalid', shown, `${request.subject} larger than ${request.maxBytes} bytes`);
  const declared = Number(headerValue(headers, 'content-length'));
  if (Number.isFinite(declared) && declared > request.maxBytes) {
    discard(body);
    throw tooLarge();
  }

  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > request.maxBytes) {
        discard(body);
        throw tooLarge();
      }
      chunks.push(chunk);
    }
  } catch (error) {
    discard(body);
    if (error instanceof InvalidInputError) throw error;
    throw networkError(shown, error, request);
  }
  // undici hands a kept-alive socket back to its pool one event-loop turn after the response
  // (setImmediate). Decoding, parsing and the caller's checks run after that turn: run in the
  // poll phase that read the body, the CPU work of a whole batch of cards would finish before any
  // socket is free, and every next request would leave in one burst after it (each wave of a
  // verify then took 50 ms plus the batch's CPU, instead of overlapping them).
  await nextTurn();

  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks, total));
  } catch {
    throw new InvalidInputError('card-invalid', shown, 'body is not valid UTF-8');
  }
  if (text.trim() === '') throw new InvalidInputError('card-invalid', shown, 'empty body, not JSON');

  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // V8 quotes the body around the error (`Unexpected token 'o', "{"x": …" is not valid JSON`):
    // a server may echo a credential there, so only the description is kept.
    const reason =
      error instanceof Error
        ? oneLine(error.message.replace(/, ".*" is not valid JSON$/s, '')).slice(0, 120)
        : 'parse error';
    throw new InvalidInputError('card-invalid', shown, `invalid JSON (${reason})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InvalidInputError('card-invalid', shown, `${request.subject} is not a JSON object`);
  }
  return parsed;
}

/** Stop reading a body now: destroy the stream (undici then drops the socket) without an unhandled 'error'. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** Read a little (at most 64 KiB) of an unwanted body so the keep-alive socket can be reused; never throws. */
export async function drain(body: Dispatcher.ResponseData['body']): Promise<void> {
  try {
    await body.dump({ limit: DRAIN_LIMIT_BYTES });
  } catch {
    // Aborted or reset: the socket is gone anyway. The status we already have is the answer.
  }
}

/** A response header's value (the first, when undici gives several), or `undefined`; `name` is lower-case. */
export function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
