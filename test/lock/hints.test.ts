/**
 * The next step each refusal names (src/lock/hints.ts): a command, or a docs page that exists (its
 * anchor too), for every refusal code; `a2a add` names itself again with the flag.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HINT_DOCS, hintDrift, refusalHint, updateResolves } from '../../src/lock/hints.js';
import { RefusalCode } from '../../src/negotiate/types.js';
import { anchors, REPO } from '../helpers/markdown.js';

const BIND = {
  code: 'plain-http',
  message:
    'the card offers the profile\'s interfaces only over plain http to a host that is not loopback (JSONRPC 1.0 at http://0.0.0.0:8080/); the card advertises its bind address (http://0.0.0.0:8080/), which no client can reach; set "rebaseInterfaces": true on the agent in a2a.json to lock it at the origin the card came from',
} as const;

/** Every `docs/….md#anchor` a hint names. */
function docLinks(hint: string): string[] {
  return [...hint.matchAll(/docs\/[\w/.-]+\.md(?:#[\w-]+)?/g)].map((m) => m[0]);
}

/** Whether `link` (`docs/x.md#anchor`) is an existing page with that heading. */
function resolves(link: string): boolean {
  const [path, anchor] = link.split('#') as [string, string | undefined];
  const file = join(REPO, path);
  return existsSync(file) && (anchor === undefined || anchors(readFileSync(file, 'utf8')).has(anchor));
}

describe('refusal hints', () => {
  it('every docs link a hint can name is an existing page and heading', () => {
    for (const link of Object.values(HINT_DOCS)) expect(resolves(link), link).toBe(true);
    expect(resolves('docs/reference/manifest.md#no-such-heading')).toBe(false);
  });

  it('every docs link a hint (or any other line) in src/ names is an existing page and heading', () => {
    const src = join(REPO, 'src');
    const links = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) => docLinks(readFileSync(join(src, f), 'utf8')));
    expect(links).toContain('docs/guide/hosted-agents.md#platform-authentication-originauth');
    for (const link of links) expect(resolves(link), link).toBe(true);
  });

  it('every refusal code has a hint naming a command or an existing docs page, after update and after add', () => {
    const add = { command: 'a2a add research https://r.example.com --skill s', card: 'https://r.example.com' };
    for (const code of Object.values(RefusalCode)) {
      for (const refusal of [{ code, message: 'x' }, ...(code === 'plain-http' ? [BIND] : [])])
        for (const retry of [undefined, add]) {
          const hint = refusalHint('research', 's', refusal, ['apikey'], retry);
          const links = docLinks(hint);
          expect(/\ba2a (update|remove|add|card) /.test(hint) || links.length > 0, `${code}: ${hint}`).toBe(true);
          for (const link of links) expect(resolves(link), `${code}: ${link}`).toBe(true);
        }
    }
  });

  it('each names the command that resolves it', () => {
    const msg = (code: string) => ({ code: code as 'skill-not-found', message: 'x' });
    expect(refusalHint('research', 'brief', msg('skill-not-found'), undefined)).toBe(
      'remove the skill from a2a.json: a2a remove research --skill brief',
    );
    // A skill id that starts with "-" is given as --skill=<id> (else the shell line reads it as a flag).
    expect(refusalHint('research', '-rf', msg('skill-not-found'), undefined)).toBe(
      'remove the skill from a2a.json: a2a remove research --skill=-rf',
    );
    expect(refusalHint('research', 's', msg('missing-credential'), ['apikey'])).toMatch(
      /^a2a update research --credential apikey=<ENV> /,
    );
    expect(refusalHint('research', 's', BIND, undefined)).toBe(
      `a2a update research --rebase-interfaces (${HINT_DOCS.rebaseInterfaces})`,
    );
    expect(refusalHint('research', 's', msg('plain-http'), undefined)).toMatch(/^a2a update research --allow-http /);
    const add = { command: "a2a add run 'https://x.run.app/a b'", card: 'https://x.run.app', range: "--range '^1'" };
    // A retry gives --range once: the one given, or the new one a version-out-of-range asks for.
    expect(refusalHint('run', 's', msg('version-out-of-range'), undefined, add)).toMatch(
      /^a2a add run 'https:\/\/x\.run\.app\/a b' --range <range> /,
    );
    expect(refusalHint('run', 's', msg('missing-credential'), ['k'], add)).toMatch(
      /^a2a add run 'https:\/\/x\.run\.app\/a b' --range '\^1' --credential k=<ENV> /,
    );
    expect(refusalHint('run', 's', BIND, undefined, add)).toMatch(
      /^a2a add run 'https:\/\/x\.run\.app\/a b' --range '\^1' --rebase-interfaces /,
    );
  });

  it('a drift refusal gets a hint only when no field of its skill moves (then a2a update is the step)', () => {
    const refused = { skill: 'a', refusal: { code: 'skill-not-found' as const, message: 'x' } };
    const moved = [
      { skill: 'b', refusal: { code: 'no-common-interface' as const, message: 'x' } },
      { skill: 'b', field: 'url', locked: 'u', fresh: 'v' },
    ];
    const hinted = hintDrift('research', [refused, ...moved]);
    expect(hinted[0]!.hint).toBe('remove the skill from a2a.json: a2a remove research --skill a');
    expect(hinted[1]!.hint).toBeUndefined();
    expect(updateResolves(hinted, undefined)).toBe(true);
    expect(updateResolves(hintDrift('research', [refused]), undefined)).toBe(false);
  });
});
