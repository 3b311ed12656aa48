/**
 * The secret values a manifest draws from the environment: what a run's output is redacted of. Pure:
 * the environment is a value passed in.
 */
import { type Manifest, sourceVariables } from './schema.js';

/** The shortest value counted (as long as the shortest cut-short echo the redactor masks). */
const MIN_SECRET_LENGTH = 12;

/** The variables AWS Signature V4 signs with whose values are secret (`originAuth` `awsSigV4`). */
const AWS_SECRET_VARIABLES = ['AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'];

/**
 * The values, as set in `env`, of every variable `manifest` names as a secret's source: each agent's
 * credential sources (an OAuth client's id and secret), each `originAuth` placement's variable
 * (AWS's secret key and session token for `awsSigV4`). Unset ones, and values shorter than
 * {@link MIN_SECRET_LENGTH} characters (ordinary text could hold one by chance: a card refused, or
 * its words masked, for a word), are left out. Whether
 * or not a run reads them, its output never shows them: an agent that was sent a token can put it
 * in its card, and a card's text is printed.
 */
export function manifestSecretValues(
  manifest: Pick<Manifest, 'agents' | 'originAuth'>,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const names = new Set<string>();
  for (const agent of Object.values(manifest.agents))
    for (const source of Object.values(agent.credentials ?? {}))
      for (const name of sourceVariables(source)) names.add(name);
  for (const auth of Object.values(manifest.originAuth ?? {})) {
    if ('awsSigV4' in auth) for (const name of AWS_SECRET_VARIABLES) names.add(name);
    else names.add('bearer' in auth ? auth.bearer.env : auth.header.env);
  }
  const values = new Set<string>();
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value.length >= MIN_SECRET_LENGTH) values.add(value);
  }
  return [...values];
}
