/**
 * Where the findings of a run point (`--format sarif`): the lockfile and the manifest named from
 * the root of the git repository holding them, and the line of each agent's key under `"agents"`
 * in each. Reads files and asks git; the SARIF itself is built by `cli/render/sarif.ts`.
 */

import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { readTextIfExists } from '../fs/atomic-write.js';
import { gitRoot } from '../fs/git.js';
import { memberLines } from '../json-document.js';

/** One file findings point at: its path from the repository root (`/` separated) and agent → 1-based line. */
export interface AgentFile {
  path: string;
  lines: Record<string, number>;
}

/** The two files a finding of `diff` or `verify` can point at. */
export interface AgentFiles {
  lockfile: AgentFile;
  manifest: AgentFile;
}

/** One file to locate agents in: its absolute path, and its text when the caller has it (else it is read). */
export interface FileToLocate {
  file: string;
  text?: string | undefined;
}

/** The agents' lines in `text` (none when there is no text, or it is not JSON: a finding then points at line 1). */
function linesIn(text: string | undefined, names: readonly string[]): Record<string, number> {
  if (text === undefined) return {};
  try {
    JSON.parse(text);
  } catch {
    return {};
  }
  return memberLines(text, 'agents', names);
}

/**
 * The lockfile and the manifest findings point at, each with the line of `names` in it. A file not
 * given as text is read now; one that is gone or unreadable gives no lines.
 */
export async function locateAgents(
  lockfile: FileToLocate,
  manifest: FileToLocate,
  names: readonly string[],
): Promise<AgentFiles> {
  const locate = async (f: FileToLocate, code: 'lockfile-invalid' | 'manifest-invalid'): Promise<AgentFile> => {
    const text = 'text' in f ? f.text : await readTextIfExists(f.file, code).catch(() => undefined);
    return { path: await repositoryPath(f.file), lines: linesIn(text, names) };
  };
  return { lockfile: await locate(lockfile, 'lockfile-invalid'), manifest: await locate(manifest, 'manifest-invalid') };
}

/** `file` from the root of the git repository holding it (`/` separated); its file name outside git. */
export async function repositoryPath(file: string): Promise<string> {
  const dir = await realpath(dirname(file)).catch(() => dirname(file));
  const root = await gitRoot(dir);
  const inRepo = root === undefined ? '' : relative(root, join(dir, basename(file)));
  return inRepo && !inRepo.startsWith('..') && !isAbsolute(inRepo) ? inRepo.split(sep).join('/') : basename(file);
}
