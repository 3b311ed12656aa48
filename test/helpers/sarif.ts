/**
 * Validation of SARIF logs against the OASIS SARIF 2.1.0 JSON Schema committed under
 * `test/fixtures/sarif/` (its source in the README there), with ajv and ajv-formats.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { REPO } from './markdown.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

let validator: ValidateFunction | undefined;

/**
 * The schema's validator. The committed schema is draft-04 (`id`, `$schema` draft-04); ajv 8 reads
 * draft-07, so in memory its `id` becomes `$id` and its `$schema` is dropped: it uses no keyword whose
 * meaning differs between the two drafts (no boolean `exclusiveMinimum`, no `dependencies`).
 */
function sarifValidator(): ValidateFunction {
  if (validator) return validator;
  const schema = JSON.parse(readFileSync(join(REPO, 'test/fixtures/sarif/sarif-schema-2.1.0.json'), 'utf8'));
  const { $schema: _draft, id, ...rest } = schema;
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  validator = ajv.compile({ $id: id, ...rest });
  return validator;
}

/** The schema's complaints about `log` (`instancePath message` each); none for a valid log. */
export function sarifErrors(log: unknown): string[] {
  const validate = sarifValidator();
  return validate(log) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

/** A SARIF result as a row: `[ruleId, level, uri, startLine, agent, skill]` (its first location). */
export type LocatedRow = [string, string, string, number, string, string | undefined];

/** The results of a run (`log.runs[0]`) as {@link LocatedRow}s, in order. */
export function located(run: { results: unknown[] }): LocatedRow[] {
  return run.results.map((result) => {
    const r = result as {
      ruleId: string;
      level: string;
      locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }>;
      properties: { agent: string; skill?: string };
    };
    const where = r.locations[0]!.physicalLocation;
    return [
      r.ruleId,
      r.level,
      where.artifactLocation.uri,
      where.region.startLine,
      r.properties.agent,
      r.properties.skill,
    ];
  });
}
