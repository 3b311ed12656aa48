/**
 * The change view's renderings (cli/render/diff.ts): the markdown view against a golden file (with
 * hostile card text escaped), its size limit, the text view's lines, and the annotations.
 * `UPDATE_GOLDEN=1` rewrites the golden file.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import kleur from 'kleur';
import { beforeAll, describe, expect, it } from 'vitest';
import { integrityOf } from '../../src/canonical.js';
import { normalizeCard } from '../../src/card/normalize.js';
import { diffAnnotations } from '../../src/cli/github.js';
import { untrusted } from '../../src/cli/render/common.js';
import { diffLines, diffMarkdown, MARKDOWN_LIMIT, markdownMarker } from '../../src/cli/render/diff.js';
import { lockMarkdownRenderer } from '../../src/cli/render/lock.js';
import { escapeMarkdown } from '../../src/cli/step-summary.js';
import type { LockData } from '../../src/commands/lock.js';
import { lockDigest } from '../../src/lock/digest.js';
import { negotiateSkills } from '../../src/lock/drift.js';
import { diffLockfiles } from '../../src/lock/lockfile-diff.js';
import type { LockEntry, Lockfile } from '../../src/lock/schema.js';
import { type AgentSettings, DEFAULT_PROFILE } from '../../src/manifest/schema.js';
import { keyedWorkedExample } from '../helpers/worked-example.js';

type Json = Record<string, any>;
const GOLDEN = new URL('../fixtures/diff/golden.md', import.meta.url);
const SETTINGS: AgentSettings = { ...DEFAULT_PROFILE, credentials: ['key'] };

function raw(
  origin: string,
  patch: (c: Json) => void = () => {
    /* unchanged */
  },
): Json {
  return keyedWorkedExample((c) => {
    for (const i of c.supportedInterfaces) i.url = i.url.replace('https://research.example.com', origin);
    patch(c);
  });
}

/** An agent on plain http needs its allowHttp, as a2a.json and the lock settings would say. */
const settingsOf = (card: string): AgentSettings =>
  card.startsWith('http://') ? { ...SETTINGS, allowHttp: true } : SETTINGS;

function entry(card: string, json: Json, skills = ['market-size']): LockEntry {
  const url = `${card}/.well-known/agent-card.json`;
  const normalized = normalizeCard(json, { source: url, baseUrl: url }).card;
  const { plans } = negotiateSkills(normalized, skills, settingsOf(card));
  return {
    card,
    resolved: url,
    a2aVersion: '1.0',
    version: String(json.version),
    integrity: integrityOf(json),
    snapshot: json,
    plans,
    signature: { status: 'absent' },
  };
}

function lockfile(agents: Record<string, LockEntry>): Lockfile {
  return {
    lockfileVersion: 1,
    settings: Object.fromEntries(Object.entries(agents).map(([n, e]) => [n, settingsOf(e.card)])),
    agents,
  };
}

const R = 'https://research.example.com';
const HOSTILE = 'Sizes | markets <script>alert(1)</script> ``` **bold** \u001b[31mred\u001b[0m';
const base = lockfile({
  research: { ...entry(R, raw(R)), signature: { status: 'verified', kid: 'k1', alg: 'ES256', thumbprint: 'T1' } },
  retired: entry('https://retired.example.com', raw('https://retired.example.com')),
  steady: entry('https://steady.example.com', raw('https://steady.example.com')),
  legacy: entry('https://legacy.example.com', raw('https://legacy.example.com')),
});
const head = lockfile({
  research: entry(
    R,
    raw('https://evil.example.net', (c) => {
      c.version = '2.5.0';
      c.description = HOSTILE;
      c.skills[0].outputModes = ['application/pdf', 'text/plain'];
    }),
  ),
  fresh: entry('http://fresh.example.org', raw('http://fresh.example.org')),
  steady: entry('https://steady.example.com', raw('https://steady.example.com')),
  'legacy-v2': entry('https://legacy.example.com', raw('https://legacy.example.com')),
});

beforeAll(() => {
  kleur.enabled = false;
});

describe('the markdown view', () => {
  it('matches the golden file: marker, counts, table, one <details> per agent, card text escaped', () => {
    const diff = untrusted(diffLockfiles(base, head));
    const md = diffMarkdown(diff.agents, diff.counts, 'a2a.lock.json: main → working tree');
    if (process.env.UPDATE_GOLDEN || !existsSync(GOLDEN)) writeFileSync(GOLDEN, md);
    expect(md).toBe(readFileSync(GOLDEN, 'utf8'));
    const lines = md.split('\n');
    expect(lines[0]).toBe('<!-- a2a-lock-diff a2a.json none -->');
    expect(lines[1]).toBe('**2 changed, 1 added, 1 removed, 1 renamed · 5 high, 1 medium, 2 low · 2 better**');
    // Card text shows as text: only inside a code fence (GitHub renders it literally), never in the table or a summary.
    const outsideFences = md.split(/^`{3,}$/m).filter((_, i) => i % 2 === 0);
    expect(outsideFences.join('')).not.toContain('<script>');
    expect(md).toContain('<script>alert(1)</script>');
    expect(md).not.toContain('\u001b');
    expect(md).toContain('\\u001b[31mred');
    expect(md.match(/<details>/g)).toHaveLength(4);
  });

  it('cells escape HTML and markdown; a fence outgrows any backticks in the body', () => {
    expect(escapeMarkdown('a | b <i> `c` *d*\nnext')).toBe('a \\| b &lt;i&gt; \\`c\\` \\*d\\*\\\\u000anext');
    const diff = untrusted(diffLockfiles(base, head));
    const md = diffMarkdown(diff.agents, diff.counts);
    expect(md).toContain('\n````\n'); // the description holds ```
  });

  it('above 60,000 characters the details are cut with a note; the table stays', () => {
    // 200 agents whose interfaces all moved: about 2,000 characters of details each.
    const many = (one: LockEntry) =>
      lockfile(
        Object.fromEntries(
          Array.from({ length: 200 }, (_, i) => [
            `agent-${String(i).padStart(4, '0')}`,
            { ...one, card: `https://a${i}.example.com` },
          ]),
        ),
      );
    const diff = diffLockfiles(
      many(
        entry(
          R,
          raw(R, (c) => (c.version = '1.0.0')),
        ),
      ),
      many(
        entry(
          R,
          raw('https://moved.example.com', (c) => (c.version = '0.9.0')),
        ),
      ),
    );
    expect(diff.counts.changed).toBe(200);
    const md = diffMarkdown(diff.agents, diff.counts);
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(md.split('\n')[0]).toBe(markdownMarker('a2a.json', undefined));
    expect(md).toMatch(
      /_The details of \d+ agents (\(\d+ high: new-credential-destination, card-version-rollback\) )?are cut to stay under GitHub's comment limit; run `a2a diff` locally to see them\._/,
    );
    expect(md).toContain('<details>');
  });
});

/** The markdown outside code fences: what GitHub renders as markdown (a fence's content is shown literally). */
function outsideFences(md: string): string {
  return md
    .split(/^`{3,}$/m)
    .filter((_, i) => i % 2 === 0)
    .join('\n');
}

describe('the markdown view: bounded, ordered by risk, inert, one marker per manifest', () => {
  it("a head lockfile whose skill ids are runs of backticks (hundreds of thousands in one agent's details) is written, its details cut, no crash", () => {
    const before = lockfile({ research: entry(R, raw(R)) });
    const after = lockfile({ research: entry(R, raw(R)) });
    const plan = after.agents.research!.plans['market-size']!;
    for (let i = 0; i < 700; i++) after.agents.research!.plans[`${i}${'`a'.repeat(450)}`] = plan;
    const diff = untrusted(diffLockfiles(before, after));
    const md = diffMarkdown(diff.agents, diff.counts);
    expect(md).toContain('| research |');
    expect(md).toContain('are cut to stay under GitHub');
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
  });

  it("a 61,000-character card version on one agent: its cells are bounded with …, and another agent's high risk is still named, row and details", () => {
    const long = 'x'.repeat(61_000);
    const before = lockfile({
      aaa: entry('https://aaa.example.com', raw('https://aaa.example.com')),
      zzz: entry(R, raw(R)),
    });
    const after = lockfile({
      aaa: entry(
        'https://aaa.example.com',
        raw('https://aaa.example.com', (c) => (c.version = long)),
      ),
      zzz: entry(R, raw('https://evil.example.net')),
    });
    const diff = untrusted(diffLockfiles(before, after));
    expect(diff.agents.find((a) => a.name === 'zzz')?.level).toBe('high');
    const md = diffMarkdown(diff.agents, diff.counts, `a2a.lock.json: ${long} → working tree`);
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    const rows = md.split('\n').filter((l) => l.startsWith('| '));
    // Highest risk first; every row short; the long version cut to about 100 characters with …
    expect(rows.map((r) => r.split(' | ')[0])).toEqual(['| Agent', '| zzz', '| aaa']);
    expect(rows[1]).toContain('**high**: new-credential-destination');
    for (const line of md.split('\n').filter((l) => !l.startsWith('    '))) expect(line.length).toBeLessThan(1_100);
    expect(rows[2]).toMatch(/ 2\.4\.0 → x{99}… \|/);
    expect(md).toContain('<details><summary>zzz: changed · high</summary>');
    expect(md).toContain(
      'high new-credential-destination: now sends key → https://evil.example.net (plan market-size)',
    );
    expect(md).not.toContain('cut to stay under');
  });

  it('rows past the size limit are left out one by one, the high and medium ones first in and counted in the note', () => {
    const many = Object.fromEntries(
      Array.from({ length: 400 }, (_, i) => [
        `agent-${String(i).padStart(4, '0')}-${'n'.repeat(90)}`,
        entry(`https://a${i}.example.com`, raw(`https://a${i}.example.com`)),
      ]),
    );
    const moved = Object.fromEntries(Object.entries(many).map(([n, e]) => [n, { ...e, version: '2.4.1' }]));
    const before = lockfile({ ...many, zzz: entry(R, raw(R)) });
    const after = lockfile({ ...moved, zzz: entry(R, raw('https://evil.example.net')) });
    const diff = diffLockfiles(before, after);
    const md = diffMarkdown(diff.agents, diff.counts);
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    const rows = md.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Agent'));
    expect(rows[0]).toMatch(/^\| zzz \| changed \|.*\*\*high\*\*/);
    expect(rows.length).toBeLessThan(401);
    expect(md).toMatch(/_\d+ more agents changed, not in the table/);
    expect(md).not.toMatch(/more agents changed \(\d+ high/); // zzz, the one high, is in the table
  });

  it('mentions and autolinks in a card version or a skill id stay inert: in the diff, in update --format markdown, in the job summary escaper', () => {
    const HOSTILE_TEXT = '@org/team https://evil.example/login www.evil.example';
    const before = lockfile({ research: entry(R, raw(R)) });
    const after = lockfile({
      research: entry(
        R,
        raw(R, (c) => {
          c.version = HOSTILE_TEXT;
          c.skills[0].id = HOSTILE_TEXT;
        }),
        [HOSTILE_TEXT],
      ),
    });
    const diff = untrusted(diffLockfiles(before, after));
    const md = diffMarkdown(diff.agents, diff.counts, HOSTILE_TEXT);
    const data = {
      ok: true,
      written: true,
      agents: {},
      human: { lockfile: '/repo/a2a.lock.json', failures: [], agents: [], review: diff },
    } as unknown as LockData;
    const update = lockMarkdownRenderer.text(data).join('\n');
    for (const out of [md, update, escapeMarkdown(HOSTILE_TEXT)]) {
      expect(out).toContain('org/team');
      const rendered = outsideFences(out)
        .replace(/&#64;/g, '@')
        .replace(/&#8203;/g, '\u200b')
        .replace(/\\(.)/g, '$1');
      // What GitHub reads after rendering: no "@" followed by a name (a mention), and the text
      // GitHub's autolinker reads keeps its escapes (no "https://" or "www." run in one piece).
      expect(rendered).not.toMatch(/@[A-Za-z0-9]/);
      expect(outsideFences(out)).not.toMatch(/https:\/\/evil|www\.evil/);
    }
    expect(md).toContain('| research | changed |');
    expect(update.split('\n')[0]).toBe('<!-- a2a-lock-diff a2a.json none -->');
  });

  it('the marker names the manifest (one comment per manifest) and nothing in the path ends the comment', () => {
    const diff = diffLockfiles(base, head);
    expect(
      diffMarkdown(diff.agents, diff.counts, undefined, { manifest: 'services/billing/a2a.json' }).split('\n')[0],
    ).toBe('<!-- a2a-lock-diff services/billing/a2a.json none -->');
    expect(markdownMarker('a-->b <x>/a2a.json', undefined)).toBe(
      '<!-- a2a-lock-diff a--%3Eb%20%3Cx%3E/a2a.json none -->',
    );
  });

  it("the marker's fourth field is the head lockfile's digest (none without one), never anything that ends the comment", () => {
    const diff = diffLockfiles(base, head);
    const digest = lockDigest(head);
    expect(diffMarkdown(diff.agents, diff.counts, undefined, { manifest: 'a2a.json', digest }).split('\n')[0]).toBe(
      `<!-- a2a-lock-diff a2a.json ${digest} -->`,
    );
    // The update view (a pull request body) carries the written lockfile's digest too.
    const data = {
      ok: true,
      written: true,
      agents: {},
      human: { lockfile: '/repo/a2a.lock.json', failures: [], agents: [], review: diff, digest },
    } as unknown as LockData;
    expect(lockMarkdownRenderer.text(data)[0]).toBe(`<!-- a2a-lock-diff a2a.json ${digest} -->`);
    expect(markdownMarker('a2a.json', 'sha256-x --> <b>')).toBe('<!-- a2a-lock-diff a2a.json none -->');
  });
});

describe('the text view', () => {
  it('verdict lines, plan fields then card then signature, risks, better, unchanged folded, the count line', () => {
    const diff = diffLockfiles(base, head);
    const lines = diffLines(diff.agents, diff.counts);
    expect(lines).toContain('+ fresh (http://fresh.example.org, version 2.4.0) · high');
    expect(lines).toContain('- retired (was https://retired.example.com, version 2.4.0)');
    expect(lines).toContain('~ renamed legacy → legacy-v2 (version 2.4.0)');
    const at = lines.indexOf('~ research (version 2.4.0 → 2.5.0) · high');
    expect(at).toBeGreaterThanOrEqual(0);
    const block = lines.slice(
      at + 1,
      lines.findIndex((l, i) => i > at && !l.startsWith(' ')),
    );
    const first = (re: RegExp) => block.findIndex((l) => re.test(l));
    expect(first(/^ {4}plan market-size › url/)).toBeLessThan(first(/^ {4}card:/));
    expect(first(/^ {4}card:/)).toBeLessThan(first(/^ {4}signature \(card\): verified/));
    expect(block).toContain('    high signature-weakened: card signature: verified → absent');
    expect(block).toContain(
      '    high new-credential-destination: now sends key → https://evil.example.net (plan market-size)',
    );
    expect(block).toContain(
      '    better credential-destination-removed: no longer sends key → https://research.example.com (plan market-size)',
    );
    expect(lines).toContain('  1 agent unchanged: steady');
    expect(lines.at(-1)).toBe('2 changed, 1 added, 1 removed, 1 renamed · 5 high, 1 medium, 2 low · 2 better');
  });

  it('annotations: high as ::error, medium as ::warning, at most 10, at the agent line', () => {
    const diff = diffLockfiles(base, head);
    const out = diffAnnotations('a2a.lock.json', diff.agents, { research: 12, fresh: 3 });
    expect(out[0]).toMatch(
      /^::error file=a2a\.lock\.json,line=3,title=fresh%3A new-credential-destination%2C cleartext-transport::/,
    );
    expect(out[1]).toMatch(
      /^::error file=a2a\.lock\.json,line=12,title=research%3A new-credential-destination%2C signature-weakened::/,
    );
    const agents = Array.from({ length: 15 }, (_, i) => ({
      name: `a${i}`,
      level: 'medium' as const,
      risks: [{ code: 'delivery-changed' as const, level: 'medium' as const, message: 'm' }],
    }));
    expect(diffAnnotations('a2a.lock.json', agents, {})).toHaveLength(10);
    expect(diffAnnotations('a2a.lock.json', agents, {})[0]).toBe(
      '::warning file=a2a.lock.json,title=a0%3A delivery-changed::m; review it in a2a diff',
    );
  });
});
