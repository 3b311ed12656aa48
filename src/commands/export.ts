/**
 * `a2a export --format cyclonedx`: the bill of agents. Reads the lockfile beside the manifest (no
 * network), maps it to a CycloneDX 1.6 BOM (`lock/cyclonedx.ts`) and returns its text, to print
 * or to write to `--output`. The clock is read here, and only for `--timestamp`.
 */
import { realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { ExitCode, OutOfDateError, UsageError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { readLockfileDigest } from '../fs/lockfile.js';
import { bomText, cycloneDxBom } from '../lock/cyclonedx.js';
import { type CommandResult, type GlobalOptions, paths } from './context.js';

/** The export formats. */
type ExportFormat = 'cyclonedx';

/** What `a2a export` is asked for. */
export interface ExportArgs {
  format: ExportFormat;
  /** The file to write (relative to the working directory); absent: the BOM goes to stdout. */
  output?: string;
  /** Origins the client counts as its own (`--first-party`), each `scheme://host[:port]`. */
  firstParty: string[];
  /** Write `metadata.timestamp` (now). */
  timestamp: boolean;
  /** a2a-lock's version (the BOM's tool). */
  toolVersion: string;
}

/**
 * The answer of `a2a export`. The `--json` document (with `--output`) is `{"ok", "format",
 * "output", "serialNumber", "lockfileDigest", "services"}`; `human.lines` are the BOM's lines,
 * which stdout gets without `--output`.
 */
export interface ExportData {
  ok: true;
  format: ExportFormat;
  /** The file written (absolute path); absent: the BOM is the output. */
  output?: string;
  serialNumber: string;
  lockfileDigest: string;
  /** How many services (locked agents) the BOM lists. */
  services: number;
  /** The BOM's text, line by line (no line holds a control character: see `bomText`); `output` as given. */
  human: { lines: string[]; output?: string };
}

/**
 * The file an atomic write to `path` replaces: `path` itself when it exists (a symlink is resolved),
 * else its folder resolved and its name; `path` as given when neither can be resolved.
 */
async function realFile(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return join(await realpath(dirname(path)).catch(() => dirname(path)), basename(path));
  }
}

/**
 * Export the lockfile as a bill of agents. Exit 0.
 * @throws UsageError `--output` names the manifest or the lockfile; OutOfDateError no lockfile;
 *   InvalidInputError `lockfile-invalid` (unreadable, or a snapshot not matching its integrity);
 *   A2aLockError `write-failed`
 */
export async function runExport(options: GlobalOptions, args: ExportArgs): Promise<CommandResult<ExportData>> {
  const { manifest, lockfile } = paths(options);
  const output = args.output === undefined ? undefined : resolve(options.cwd, args.output);
  if (output !== undefined) {
    // The file the write would replace, through any symlinked folder, against the files themselves.
    const target = await realFile(output);
    const [realManifest, realLockfile] = await Promise.all([realFile(manifest), realFile(lockfile)]);
    if (target === realManifest || target === realLockfile)
      throw new UsageError(`--output ${args.output} names the ${target === realManifest ? 'manifest' : 'lockfile'}`);
  }
  // The digest taken as the file is read: one walk of the whole lockfile, shared by the BOM and the answer.
  const read = await readLockfileDigest(lockfile);
  if (!read) throw new OutOfDateError(`${lockfile}: not found`);
  const bom = cycloneDxBom(read.lock, {
    digest: read.digest,
    toolVersion: args.toolVersion,
    firstParty: args.firstParty,
    source: lockfile,
    // Seconds, UTC: the one read of the clock, only when asked.
    ...(args.timestamp ? { timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') } : {}),
  });
  const text = bomText(bom);
  if (output !== undefined) await writeFileAtomic(output, text);
  // Without --output the BOM is the output: JSON already, whatever --json says.
  if (output === undefined) options.json = false;
  return {
    exitCode: ExitCode.Ok,
    data: {
      ok: true,
      format: args.format,
      ...(output !== undefined ? { output } : {}),
      serialNumber: bom.serialNumber,
      lockfileDigest: read.digest,
      services: bom.services.length,
      human: {
        lines: text.slice(0, -1).split('\n'),
        ...(args.output !== undefined ? { output: args.output } : {}),
      },
    },
    warnings: [],
  };
}
