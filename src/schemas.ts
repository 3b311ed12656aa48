/**
 * The zod schemas of `a2a.json` (and `--profile` documents) and `a2a.lock.json`, as the library
 * exports them: built when `a2a-lock` is imported. Inside, the CLI and the runtime build them on the
 * first read of a document (see `manifestSchemas`, `lockSchemas` and `Format`).
 */
import { lockSchemas } from './lock/schema.js';
import { manifestSchemas } from './manifest/schema.js';

/** The manifest `a2a.json` (strict: an unknown key is an error; defaults filled in). */
export const ManifestSchema = manifestSchemas().ManifestSchema;
/** A full client profile (the manifest's `profile`, a `--profile` document). */
export const ProfileSchema = manifestSchemas().ProfileSchema;
/** The whole `a2a.lock.json`: per agent its settings and its entry. */
export const LockfileSchema = lockSchemas().LockfileSchema;
