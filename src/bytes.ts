/** Bytes and their text encodings (UTF-8, hex, base64, base64url), with no Node `Buffer`: the core runs wherever the runtime loader does. */

/** The UTF-8 bytes of `text` (a lone surrogate as U+FFFD). */
export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** `bytes` after `shift` zero bytes (a base64 spelling of the secret at another byte alignment). */
export function shifted(bytes: Uint8Array, shift: number): Uint8Array {
  const out = new Uint8Array(shift + bytes.length);
  out.set(bytes, shift);
  return out;
}

/** Lower-case hex of `bytes`. */
export function hex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}

/** `bytes` in base64 (padded) or base64url (unpadded, RFC 4648 §5). */
export function base64(bytes: Uint8Array, alphabet: 'base64' | 'base64url'): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  const text = btoa(binary);
  return alphabet === 'base64' ? text : text.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * Base64 text (`[A-Za-z0-9+/=]`) decoded leniently and read as UTF-8 (invalid sequences as
 * U+FFFD): it ends at the first `=`, and a last lone character is dropped.
 */
export function fromBase64(text: string): string {
  const end = text.indexOf('=');
  let data = end >= 0 ? text.slice(0, end) : text;
  if (data.length % 4 === 1) data = data.slice(0, -1);
  const binary = atob(data + '='.repeat((4 - (data.length % 4)) % 4));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}
