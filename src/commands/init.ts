/** `a2a init`: write a starter manifest. */
import { existsSync } from 'node:fs';
import { ExitCode, UsageError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { DEFAULT_PROFILE, MANIFEST_SCHEMA_REF } from '../manifest/schema.js';
import { type CommandResult, type GlobalOptions, paths } from './context.js';

/** The answer of `a2a init`, all of it the `--json` document: the manifest's absolute path, written. */
export interface InitData {
  ok: true;
  manifest: string;
  written: true;
}

/** Write `a2a.json` with `$schema`, the default profile and no agents. Refuses to overwrite. */
export async function runInit(options: GlobalOptions): Promise<CommandResult<InitData>> {
  // Written here, in the working directory: no search upward.
  const { manifest } = paths(options, false);
  if (existsSync(manifest)) throw new UsageError(`${manifest} already exists`);
  const starter = { $schema: MANIFEST_SCHEMA_REF, profile: { ...DEFAULT_PROFILE }, agents: {} };
  // A missing directory or no permission is write-failed (exit 2), not a bug (70).
  await writeFileAtomic(manifest, `${JSON.stringify(starter, null, 2)}\n`);
  return { exitCode: ExitCode.Ok, data: { ok: true, manifest, written: true }, warnings: [] };
}
