/**
 * Reading the repository's Markdown as GitHub renders it, for the tests that hold the docs to the code:
 * the docs' files, a page's table rows and headings, heading anchors, and the relative links of a page.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (absolute path). */
export const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** README.md, CONTRIBUTING.md and every `.md` under docs/, as paths relative to the repository root. */
export function docFiles(root = REPO): string[] {
  const docs = existsSync(join(root, 'docs'))
    ? readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.md'))
        .map((f) => join('docs', f))
    : [];
  return ['README.md', 'CONTRIBUTING.md', ...docs].filter((f) => existsSync(join(root, f))).sort();
}

/** A page's text (path relative to the repository root). */
export function page(path: string, root = REPO): string {
  return readFileSync(join(root, path), 'utf8');
}

/** The lines of a page outside fenced code blocks (fences of three or more backticks or tildes). */
export function proseLines(text: string): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length) fence = undefined;
      continue;
    }
    if (m) {
      fence = m[1];
      continue;
    }
    out.push(line);
  }
  return out;
}

/** The lines under the heading `title` (any level), up to the next heading of the same or a higher level. */
export function section(text: string, title: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^#+ /.test(l) && l.replace(/^#+ /, '') === title);
  if (start < 0) throw new Error(`no heading "${title}"`);
  const level = /^#+/.exec(lines[start]!)![0].length;
  const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l) && /^#+/.exec(l)![0].length <= level);
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped (but `-` and `_`), each space a `-`. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor of a page's headings, with GitHub's `-1`, `-2` suffixes for repeated headings. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of proseLines(text)) {
    const m = /^#{1,6} (.+?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The relative link targets of a page (`[text](target)`, outside code), without web and mail links. */
export function relativeLinks(text: string): string[] {
  const out: string[] = [];
  for (const line of proseLines(text)) {
    const prose = line.replace(/`[^`]*`/g, '``');
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) out.push(target);
    }
  }
  return out;
}

/** The links of `file` (relative to `root`) that do not resolve: a missing file or folder, or a missing anchor. */
export function brokenLinks(file: string, root = REPO): string[] {
  const broken: string[] = [];
  const text = page(file, root);
  for (const link of relativeLinks(text)) {
    const [path, anchor] = link.split('#', 2) as [string, string | undefined];
    const target = path === '' ? join(root, file) : resolve(root, dirname(file), decodeURIComponent(path));
    if (!existsSync(target)) {
      broken.push(`${file}: ${link} (no ${relative(root, target)})`);
      continue;
    }
    if (anchor === undefined || anchor === '' || !target.endsWith('.md') || statSync(target).isDirectory()) continue;
    if (!anchors(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${file}: ${link} (no heading #${anchor})`);
  }
  return broken;
}

/** The cells of a Markdown table row (`| a | b |`), trimmed; `\|` stays inside its cell. */
export function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}
