/**
 * Protocol versions as A2A negotiates them: Major.Minor only (A2A 1.0 §3.6). Shared by card
 * reading (interface versions) and negotiation (profile versions). Pure.
 */
import { formatPath } from '../json-path.js';
import type { Warning } from './model.js';

/**
 * Cut a protocol version to Major.Minor (A2A 1.0 §3.6: patch numbers are not negotiated):
 * "0.3.0" → "0.3", "1" → "1.0". A version that is not numeric is kept as is, with a warning.
 */
export function majorMinor(version: string, path: PropertyKey[] = [], warnings: Warning[] = []): string {
  // A pre-release/build suffix only after Major.Minor[.Patch]: "2025-06-18" (a date) is not "2025.0".
  const m = /^v?(\d+)(?:\.(\d+)(?:\.\d+)?(?:[-+].*)?)?$/.exec(version.trim());
  if (!m) {
    warnings.push({ code: 'protocol-version-unrecognized', message: `protocol version "${version}" is not Major.Minor; it can only match a profile that lists it exactly`, path: formatPath(path) });
    return version;
  }
  return `${Number(m[1])}.${Number(m[2] ?? 0)}`;
}
