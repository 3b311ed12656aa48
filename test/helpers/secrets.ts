/**
 * The "a secret appears nowhere" check of the e2e and runtime suites: {@link secretForms} (the
 * spellings a leaked secret may take) and {@link expectSecretContained}. No dependency on dist/.
 */
import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';

/** What a CLI run printed (the shape of the e2e helpers' CliResult). */
interface Printed {
  stdout: string;
  stderr: string;
}

/** A request a server received (method, path, headers). */
interface Seen {
  method?: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
}

/** Where {@link expectSecretContained} looks. */
export interface SecretPlaces {
  /** CLI runs: their stdout and stderr (a list, or by label for the message). */
  results?: Printed[] | Record<string, Printed>;
  /** Files, read as UTF-8 text when checked (each must exist). */
  files?: string[];
  /** Other text, by label: bytes read earlier, an error's inspect() output, ... */
  texts?: Record<string, string>;
  /** Requests a server received: none may hold the secret in its path or any header. */
  requests?: Seen[];
}

/**
 * The forms a leaked secret may take, as [form, text]: raw, percent-encoded (encodeURIComponent,
 * and twice), form-encoded (space as `+`), JSON-escaped, and base64 / base64url of the whole value
 * and at each of the three byte alignments, so that it is found inside a longer encoded value too
 * (`Basic base64(user:secret)`): for each alignment, the run of characters that encodes only the
 * secret's bytes. {@link expectSecretContained} matches each case-insensitively (a lower-cased
 * echo, `%2f` for `%2F`).
 */
export function secretForms(secret: string): Array<[form: string, text: string]> {
  const forms: Array<[string, string]> = [
    ['raw', secret],
    ['percent-encoded', encodeURIComponent(secret)],
    ['percent-encoded twice', encodeURIComponent(encodeURIComponent(secret))],
    ['form-encoded', new URLSearchParams({ x: secret }).toString().slice(2)],
    ['JSON-escaped', JSON.stringify(secret).slice(1, -1)],
  ];
  const bytes = Buffer.from(secret, 'utf8');
  for (const alphabet of ['base64', 'base64url'] as const) {
    forms.push([alphabet, bytes.toString(alphabet)]);
    for (const shift of [0, 1, 2]) {
      const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString(alphabet);
      const core = encoded.slice(shift === 0 ? 0 : 4, Math.floor((shift + bytes.length) / 3) * 4);
      if (core.length >= 8) forms.push([`${alphabet} (alignment ${shift})`, core]);
    }
  }
  const seen = new Set<string>();
  return forms.filter(([, text]) => !seen.has(text) && Boolean(seen.add(text)));
}

/**
 * `secret` (or each of several) appears nowhere in `places`, in any of its {@link secretForms}: not in
 * the stdout or stderr of a run, the text of a file, a labelled text, nor the path or a header of a
 * request. Fails once, listing every place it was found, with the form and the text around it.
 */
export async function expectSecretContained(secret: string | readonly string[], places: SecretPlaces): Promise<void> {
  const haystacks: Array<[where: string, text: string]> = [];
  const results = Array.isArray(places.results)
    ? places.results.map((r, i) => [`result #${i}`, r] as const)
    : Object.entries(places.results ?? {});
  for (const [label, r] of results) haystacks.push([`stdout of ${label}`, r.stdout], [`stderr of ${label}`, r.stderr]);
  for (const file of places.files ?? []) haystacks.push([`file ${file}`, await readFile(file, 'utf8')]);
  for (const [label, text] of Object.entries(places.texts ?? {})) haystacks.push([label, text]);
  (places.requests ?? []).forEach((q, i) => {
    const name = `request #${i} (${q.method ? `${q.method} ` : ''}${q.path})`;
    haystacks.push([`path of ${name}`, q.path]);
    for (const [header, value] of Object.entries(q.headers))
      if (value !== undefined) haystacks.push([`header ${header} of ${name}`, String(value)]);
  });
  const found: string[] = [];
  for (const s of typeof secret === 'string' ? [secret] : secret) {
    for (const [form, text] of secretForms(s)) {
      for (const [where, haystack] of haystacks) {
        const at = haystack.toLowerCase().indexOf(text.toLowerCase());
        if (at >= 0)
          found.push(
            `${JSON.stringify(s)} (${form}) in ${where}: …${haystack.slice(Math.max(0, at - 40), at + text.length + 40)}…`,
          );
      }
    }
  }
  expect(found, `a secret leaked:\n${found.join('\n')}`).toEqual([]);
}

/**
 * No cut-short echo of `secret` in `texts`: no run of `min` (12) or more of its characters that
 * starts or ends it, raw or percent-encoded (either case), and none of its {@link secretForms}.
 * An agent that echoes all but the last few characters of a token must not defeat redaction.
 */
export async function expectNoCutShortEcho(secret: string, texts: Record<string, string>, min = 12): Promise<void> {
  const found: string[] = [];
  const chars = [...secret];
  for (let k = min; k <= chars.length; k++) {
    for (const run of [chars.slice(0, k).join(''), chars.slice(-k).join('')]) {
      for (const form of [run, encodeURIComponent(run)]) {
        for (const [where, text] of Object.entries(texts)) {
          const at = text.toLowerCase().indexOf(form.toLowerCase());
          if (at >= 0)
            found.push(
              `${JSON.stringify(form)} (${k} characters) in ${where}: …${text.slice(Math.max(0, at - 30), at + form.length + 30)}…`,
            );
        }
      }
    }
  }
  expect(found, `a cut-short echo of a secret leaked:\n${found.join('\n')}`).toEqual([]);
  await expectSecretContained(secret, { texts });
}

/** Everything an error shows: its message, stack and own properties, down its `cause` chain (8 deep). */
export function errorText(error: unknown): string {
  const seen: string[] = [];
  for (let e: unknown = error, depth = 0; e && depth < 8; depth++) {
    seen.push(
      `${String((e as Error).message)} ${String((e as Error).stack)} ${JSON.stringify(e, Object.getOwnPropertyNames(e))}`,
    );
    e = (e as { cause?: unknown }).cause;
  }
  return seen.join('\n');
}
