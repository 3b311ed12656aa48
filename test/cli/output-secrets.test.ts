/**
 * A run's output never shows a credential value its a2a.json names (promise 2), whatever a card or
 * an agent put in the result or an error: the CLI in process, with its own output.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { appendStepSummary } from '../../src/cli/step-summary.js';
import { manifestSecretValues } from '../../src/manifest/secret-values.js';
import { pluginInfo } from '../../src/version.js';

const TOKEN = 'secret-bearer-value-123456';
const CLIENT_SECRET = 'client-secret-XYZ-0123456789';
const ORIGIN_TOKEN = 'origin-platform-token-98765';
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', name), 'utf8'));
/** The spellings an agent could echo a value in: as is, upper case, base64, reversed. */
const spellings = (value: string) => [
  value,
  value.toUpperCase(),
  Buffer.from(value).toString('base64'),
  [...value].reverse().join(''),
];

/** A project whose a2a.json names three secrets, and a card file echoing them in `card`'s fields. */
function project(card: (c: Record<string, unknown>) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-output-secrets-'));
  dirs.push(dir);
  const c = fixture('cards/worked-example.json');
  card(c);
  writeFileSync(join(dir, 'card.json'), JSON.stringify(c));
  writeFileSync(
    join(dir, 'a2a.json'),
    JSON.stringify({
      profile: fixture('orchestrator-profile.json'),
      originAuth: { 'https://gateway.example': { bearer: { env: 'ORIGIN_TOKEN' } } },
      agents: {
        research: { card: './card.json', credentials: { bearer: { env: 'TOK' } }, skills: ['market-size'] },
        billing: {
          card: './card.json',
          credentials: { oauth: { oauth: { clientId: { env: 'CID' }, clientSecret: { env: 'CSECRET' } } } },
          skills: ['market-size'],
        },
      },
    }),
  );
  return dir;
}

async function run(dir: string, args: string[]): Promise<{ code: number; out: string }> {
  const written: string[] = [];
  const io = {
    cwd: dir,
    env: { TOK: TOKEN, CID: 'cid', CSECRET: CLIENT_SECRET, ORIGIN_TOKEN, NO_COLOR: '1' },
    stdout: (t: string) => {
      written.push(t);
    },
    stderr: (t: string) => {
      written.push(t);
    },
  };
  const code = await main(args, io, pluginInfo());
  return { code, out: written.join('') };
}

describe('output secrets', () => {
  it('a card that quotes the credential values a2a.json names is printed without them, in every spelling', async () => {
    const echoed = [TOKEN, CLIENT_SECRET, ORIGIN_TOKEN].flatMap(spellings).join(' ');
    const dir = project((c) => {
      c.description = `echo: ${echoed}`;
    });
    const json = await run(dir, ['card', 'card.json', '--json']);
    expect(json.code).toBe(0);
    expect(json.out).toContain('echo: ***');
    for (const value of [TOKEN, CLIENT_SECRET, ORIGIN_TOKEN])
      for (const spelling of spellings(value)) expect(json.out.toLowerCase()).not.toContain(spelling.toLowerCase());
  });

  it("an error quoting the card is printed without them, and a short value ('cid') masks no text", async () => {
    const dir = project((c) => {
      (c.capabilities as Record<string, unknown>).streaming = `${TOKEN} decided`;
    });
    const text = await run(dir, ['card', 'card.json']);
    expect(text.code).toBe(1);
    expect(text.out).toContain('card-invalid');
    expect(text.out).toContain('got string "*** decided"');
  });

  it('the values: every credential source and originAuth variable as set, at least 12 characters (not a word such as "research")', () => {
    const manifest = {
      agents: {
        a: {
          credentials: { s: { env: 'TOK' }, o: { oauth: { clientId: { env: 'CID' }, clientSecret: { env: 'CS' } } } },
        },
      },
      originAuth: {
        'https://g.example': { header: { name: 'X-Key', env: 'KEY' } },
        'https://aws.example': { awsSigV4: { region: 'us-east-1', service: 'bedrock' } },
      },
    } as never;
    const env = {
      TOK: TOKEN,
      CID: 'research',
      CS: CLIENT_SECRET,
      KEY: ORIGIN_TOKEN,
      AWS_SECRET_ACCESS_KEY: 'aws-secret-key-value',
      AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE0000',
    };
    expect(manifestSecretValues(manifest, env).sort()).toEqual(
      [TOKEN, CLIENT_SECRET, ORIGIN_TOKEN, 'aws-secret-key-value'].sort(),
    );
  });

  it('a job summary is written through the redaction of its target', () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-output-secrets-'));
    dirs.push(dir);
    const file = join(dir, 'summary.md');
    appendStepSummary(
      { env: { GITHUB_STEP_SUMMARY: file }, stderr: () => undefined, redact: (t) => t.replaceAll(TOKEN, '***') },
      `card says ${TOKEN}`,
    );
    expect(readFileSync(file, 'utf8')).toContain('card says ***');
  });
});
