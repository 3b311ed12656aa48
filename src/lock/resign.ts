/**
 * Re-signed cards: an agent that signs its card afresh on every request (Mastra signs per request,
 * and ES256 is not deterministic, so the JWS bytes differ each time) serves the same card, signed
 * by the same key, with new signature bytes. Such a card is not a change: {@link isResigned} says
 * so, and the locked snapshot is kept as it is (its bytes and its integrity), so `verify --strict`
 * and `outdated` pass and `lock` and `update` write nothing. A new key (another thumbprint, another
 * `kid` or `jku`) is still a signature change; a different payload is still a card change. Pure.
 */
import { decodeProtectedHeader } from 'jose';
import { sameJson } from '../canonical.js';
import type { SignatureRecord } from '../card/signature/verify.js';
import { isRecord } from '../json-path.js';
import type { LockEntry } from './schema.js';

/**
 * JWS protected-header members that only date or name one signing (RFC 7519 claims some signers
 * put in the header); every other member (`alg`, `kid`, `jku`, `jwk`, `x5u`, `x5c`, `x5t`, `typ`,
 * `crit`, ...) names the key or the form and must stay equal.
 */
const PER_SIGNING = new Set(['iat', 'exp', 'nbf', 'jti']);

/** One card as the check sees it: its JSON and its signature record (when it was checked). */
export interface SignedCard {
  /** The card JSON as served (or as locked). */
  raw: Record<string, unknown>;
  /** Its signature record: how it verified, by which key. */
  signature?: SignatureRecord | undefined;
}

/**
 * Whether `fresh` is `locked` signed again: both verified by the same key (equal records: status
 * `verified`, thumbprint, `kid`, `alg`) or both unverifiable alike (equal records), the same card without `signatures` (the payload), and the
 * same number of signatures, entry by entry alike except for the `signature` bytes and the
 * protected header's per-signing members ({@link PER_SIGNING}; the members naming the key equal).
 * False whenever either card is unsigned, or one verified and the other did not.
 */
export function isResigned(locked: SignedCard, fresh: SignedCard): boolean {
  // Verified by the same key; or, with no key source to verify either (no `trust` and no `jku`
  // key set), unverifiable both times: new bytes over the same payload and header then carry no
  // more meaning than the old ones, and taking them would rewrite the lockfile on every run.
  const status = locked.signature?.status;
  if ((status !== 'verified' && status !== 'unverifiable') || fresh.signature?.status !== status) return false;
  if (!sameJson(locked.signature, fresh.signature)) return false;
  const was = locked.raw.signatures;
  const now = fresh.raw.signatures;
  if (!Array.isArray(was) || !Array.isArray(now) || was.length === 0 || was.length !== now.length) return false;
  if (!sameJson(withoutSignatures(locked.raw), withoutSignatures(fresh.raw))) return false;
  return was.every((entry, i) => sameSigner(entry, now[i]));
}

/** The card without its `signatures` (what a signature covers). */
function withoutSignatures(card: Record<string, unknown>): Record<string, unknown> {
  const { signatures: _s, ...rest } = card;
  return rest;
}

/** Two signature entries made by the same signer with the same header, the bytes aside. */
function sameSigner(a: unknown, b: unknown): boolean {
  if (!isRecord(a) || !isRecord(b)) return false;
  const { signature: _as, protected: ap, ...aRest } = a;
  const { signature: _bs, protected: bp, ...bRest } = b;
  if (!sameJson(aRest, bRest)) return false;
  if (ap === bp) return true;
  const ha = protectedHeader(ap);
  const hb = protectedHeader(bp);
  return ha !== undefined && hb !== undefined && sameJson(keyMembers(ha), keyMembers(hb));
}

/** The protected header's members other than {@link PER_SIGNING}. */
function keyMembers(header: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(header).filter(([k]) => !PER_SIGNING.has(k)));
}

/** A JWS protected header (base64url of a JSON object), decoded by jose; undefined when it is not one. */
function protectedHeader(value: unknown): Record<string, unknown> | undefined {
  // base64url only: jose's decoder would also skip white space.
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]*$/.test(value)) return undefined;
  try {
    return decodeProtectedHeader({ protected: value });
  } catch {
    return undefined;
  }
}

/**
 * `fresh` (a lock entry just resolved) with the snapshots of `old` (the locked entry of the same
 * agent) kept where the fresh card is only the locked one re-signed ({@link isResigned}) from the
 * same URL: the snapshot, its integrity and its signature record stay byte for byte, so the entry
 * is unchanged. Everything else (plans, versionHeader, a snapshot that did change) is `fresh`'s.
 */
export function keepResignedSnapshots(old: LockEntry, fresh: LockEntry): LockEntry {
  let out = fresh;
  if (
    old.resolved === fresh.resolved &&
    isResigned({ raw: old.snapshot, signature: old.signature }, { raw: fresh.snapshot, signature: fresh.signature })
  ) {
    out = {
      ...out,
      integrity: old.integrity,
      snapshot: old.snapshot,
      ...(old.signature ? { signature: old.signature } : {}),
    };
  }
  if (
    old.extended &&
    fresh.extended &&
    old.extended.resolved === fresh.extended.resolved &&
    isResigned(
      { raw: old.extended.snapshot, signature: old.extended.signature },
      { raw: fresh.extended.snapshot, signature: fresh.extended.signature },
    )
  ) {
    out = { ...out, extended: old.extended };
  }
  return out;
}
