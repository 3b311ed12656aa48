/** `a2a lock digest`: the digest alone on stdout (`A2A_LOCK_DIGEST=$(a2a lock digest)`). */
import type { LockDigestData } from '../../commands/lock-digest.js';
import { type CommandRenderer, documentOf } from './common.js';

/** The document is `{"digest", "lockfile"}`; the human output is the digest, one line. */
export const lockDigestRenderer: CommandRenderer<LockDigestData> = {
  json: documentOf,
  text: (data) => [data.digest],
};
