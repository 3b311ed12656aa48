/** The output of `a2a verify` and `a2a install`: one report per agent and a summary line; verify's GitHub annotations. */
import { isAbsolute, relative, sep } from 'node:path';
import kleur from 'kleur';
import type { InstallData, VerifyData } from '../../commands/verify.js';
import { ExitCode } from '../../errors.js';
import { verifyAnnotations } from '../github.js';
import { documentOf, renderReport, type CommandRenderer } from './common.js';

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/**
 * `a2a verify`: the document is `{"ok", "agents"}`; the lines are each agent's report, then
 * `verified N agents` or `verify failed (exit N)`. The annotations (one per failing agent) name the
 * lockfile relative to the repository root (`GITHUB_WORKSPACE`), or to the working directory when it
 * lies outside it.
 */
export const verifyRenderer: CommandRenderer<VerifyData> = {
  json: documentOf,
  text: (data) => {
    const { exitCode, offline, strict } = data.human;
    const count = Object.keys(data.agents).length;
    return [
      ...Object.entries(data.agents).flatMap(([name, report]) => renderReport(name, report, { strict })),
      exitCode === ExitCode.Ok ? kleur.green(`verified ${plural(count, 'agent')}${offline ? ' (offline)' : ''}`) : kleur.red(`verify failed (exit ${exitCode})`),
    ];
  },
  annotations: (data, where) => {
    const { lockfile } = data.human;
    const inWorkspace = where.env.GITHUB_WORKSPACE ? relative(where.env.GITHUB_WORKSPACE, lockfile) : '';
    const file = inWorkspace && !inWorkspace.startsWith('..') && !isAbsolute(inWorkspace) ? inWorkspace : relative(where.cwd, lockfile);
    return verifyAnnotations(file.split(sep).join('/'), data.agents);
  },
};

/** `a2a install`: the document is `{"ok", "credentialsUnset", "agents"}`; the lines are each agent's report, then `installed N agents (M skills) from <lockfile>` or `install failed (exit N)`. */
export const installRenderer: CommandRenderer<InstallData> = {
  json: documentOf,
  text: (data) => {
    const { exitCode, lockfile, skills } = data.human;
    return [
      ...Object.entries(data.agents).flatMap(([name, report]) => renderReport(name, report)),
      exitCode === ExitCode.Ok ? kleur.green(`installed ${plural(Object.keys(data.agents).length, 'agent')} (${plural(skills, 'skill')}) from ${lockfile}`) : kleur.red(`install failed (exit ${exitCode})`),
    ];
  },
};
