/**
 * Protocol versions as A2A negotiates them: Major.Minor only (A2A 1.0 §3.6). Shared by card
 * reading (interface versions) and negotiation (profile versions). Pure.
 */
// The functions used, not the package index (which loads all of semver: 47 modules).
import coerce from 'semver/functions/coerce.js';
import semverCompare from 'semver/functions/compare.js';
import valid from 'semver/functions/valid.js';
import { formatPath } from '../json-path.js';
import { remembered } from '../remembered.js';
import type { Warning } from './model.js';

/** `"0.3.0"` → `"0.3"`, `"1"` → `"1.0"`; undefined when the version is not numeric. Asked on every negotiate(). */
const readMajorMinor = remembered((version: string): string | undefined => {
  // A pre-release/build suffix only after Major.Minor[.Patch]: "2025-06-18" (a date) is not "2025.0".
  const m = /^v?(\d+)(?:\.(\d+)(?:\.\d+)?(?:[-+].*)?)?$/.exec(version.trim());
  return m ? `${Number(m[1])}.${Number(m[2] ?? 0)}` : undefined;
});

/**
 * Cut a protocol version to Major.Minor (A2A 1.0 §3.6: patch numbers are not negotiated):
 * "0.3.0" → "0.3", "1" → "1.0". A version that is not numeric is kept as is, with a warning.
 */
export function majorMinor(version: string, path: PropertyKey[] = [], warnings: Warning[] = []): string {
  const read = readMajorMinor(version);
  if (read !== undefined) return read;
  warnings.push({
    code: 'protocol-version-unrecognized',
    message: `protocol version "${version}" is not Major.Minor; it can only match a profile that lists it exactly`,
    path: formatPath(path),
  });
  return version;
}

/**
 * An agent card's `version` as semver, for a manifest range: a valid (loose) semver as is, else a
 * plain Major[.Minor] with an optional `v` (`"1.0"` → 1.0.0, `"2"` → 2.0.0, `"v1.2"` → 1.2.0) coerced,
 * `coerced: true`. Anything else (a date, words) is not semver: `undefined`. Pure.
 */
export function cardSemver(version: string): { semver: string; coerced: boolean } | undefined {
  const exact = valid(version, { loose: true });
  if (exact) return { semver: exact, coerced: false };
  if (!/^\s*v?\d+(\.\d+)?\s*$/.test(version)) return undefined;
  const coerced = coerce(version);
  return coerced ? { semver: coerced.version, coerced: true } : undefined;
}

/** Numeric parts of a protocol version (`1.0` → [1, 0]); compares part by part. */
export function compareDotted(a: string, b: string): number {
  const pa = a.split('.').map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split('.').map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** Card versions compared as semver (coerced when not strict semver); undefined when either is not a version. */
export function compareVersions(a: string, b: string): number | undefined {
  const va = valid(a) ?? coerce(a)?.version;
  const vb = valid(b) ?? coerce(b)?.version;
  if (!va || !vb) return undefined;
  const c = semverCompare(va, vb);
  return c !== 0 ? c : valid(a) && valid(b) ? 0 : compareDotted(a, b);
}
