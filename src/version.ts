/**
 * The package version, from one source: package.json. The bundle (scripts/bundle.js) writes it in
 * for `__A2A_LOCK_VERSION__`, so a bundled run reads no file; the unbundled build (tsc output,
 * `dist/version.js`) reads `../package.json`. Only `src/bin.ts` imports this module (so the bundle
 * keeps it in `dist/a2a.js`, answering `--version` and `info` without loading a chunk); it passes
 * {@link pluginInfo} down to the CLI's `main()`.
 */
import { readFileSync } from 'node:fs';

declare const __A2A_LOCK_VERSION__: string | undefined;

/** The package version: written into the bundle, else read from package.json. */
export function packageVersion(): string {
  if (typeof __A2A_LOCK_VERSION__ === 'string') return __A2A_LOCK_VERSION__;
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** What `a2a-lock info` prints: the official `a2a` CLI's plugin contract `{name, version, description}`. */
export interface PluginInfo {
  name: string;
  version: string;
  description: string;
}

/** This package's {@link PluginInfo}. */
export function pluginInfo(): PluginInfo {
  return { name: 'lock', version: packageVersion(), description: 'Lockfile for A2A agents: lock, verify, update' };
}
