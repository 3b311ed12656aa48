/**
 * The secret values a manifest draws from the environment: what a run's output is redacted of, and
 * what no card may quote. Pure: the environment is a value passed in.
 */
import { isRecord } from '../json-path.js';
import { manifestSchemas, sourceVariables } from './schema.js';

/** The shortest value counted (as long as the shortest cut-short echo the redactor masks). */
const MIN_SECRET_LENGTH = 12;

/** The variables AWS Signature V4 signs with whose values are secret (`originAuth` `awsSigV4`). */
const AWS_SECRET_VARIABLES = ['AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'];

/**
 * The values, as set in `env`, of every variable a manifest names as a secret's source: each agent's
 * credential sources (an OAuth client's id and secret), each `originAuth` placement's variable
 * (AWS's secret key and session token for `awsSigV4`). Unset ones, and values shorter than
 * {@link MIN_SECRET_LENGTH} characters (ordinary text could hold one by chance: a card refused, or
 * its words masked, for a word), are left out. Whether or not a run reads them, its output never
 * shows them: an agent that was sent a token can put it in its card, and a card's text is printed.
 * `manifest`: a parsed manifest or a2a.json's JSON value as written. Only the sources are read, each
 * with the manifest's own schema for it (a source that is not valid is passed over), so a large
 * manifest costs little and one invalid elsewhere still names its secrets.
 */
export function manifestSecretValues(manifest: unknown, env: Readonly<Record<string, string | undefined>>): string[] {
  const { CredentialSourceSchema, OriginAuthSchema } = manifestSchemas();
  const names = new Set<string>();
  const agents = isRecord(manifest) && isRecord(manifest.agents) ? manifest.agents : {};
  for (const agent of Object.values(agents)) {
    const credentials = isRecord(agent) && isRecord(agent.credentials) ? agent.credentials : {};
    for (const source of Object.values(credentials)) {
      const read = CredentialSourceSchema.safeParse(source);
      if (read.success) for (const name of sourceVariables(read.data)) names.add(name);
    }
  }
  const originAuth = isRecord(manifest) && isRecord(manifest.originAuth) ? manifest.originAuth : {};
  for (const placement of Object.values(originAuth)) {
    const read = OriginAuthSchema.safeParse(placement);
    if (!read.success) continue;
    const auth = read.data;
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
