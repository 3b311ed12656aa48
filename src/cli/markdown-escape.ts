/**
 * The one markdown escaper (job summaries, `a2a diff --format markdown`, `a2a update --format
 * markdown`): text from a card, an agent or a file as inert markdown for one table cell or line,
 * escaping only what CommonMark and GitHub's markdown would read there, so that `a2a.json:` and
 * `research-agent` stay as written in a pull request's source view and in logs. Pure.
 *
 * - control and bidi characters as `\u` escapes ({@link escapeUntrusted}: no newline ends a cell
 *   or forges a line);
 * - `&`, `<`, `>` as HTML entities (no tag, no comment, no entity); `@` as an entity and a
 *   zero-width space (GitHub finds mentions in the rendered text: `@org/team` pings nobody);
 * - `\`, `` ` ``, `*`, `[`, `]`, `|`, `~`, `$` backslash-escaped everywhere (no code span,
 *   emphasis, link or image, table cell end, strikethrough, math); `_` where it can open or close
 *   emphasis (not inside a word: `snake_case` stays);
 * - at the start, where they would open a block: `# `, `- `, `+ `, `1. `/`1) `, a line of `-` or
 *   `=` (no heading, list, thematic break or setext underline);
 * - what GitHub autolinks: the `:` of `scheme://` and of `mailto:`/`xmpp:`, the `.` of `www.`,
 *   the `#` of an issue reference `#123`.
 */
import { escapeUntrusted } from './render/common.js';

const ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '@': '&#64;&#8203;' };
const WORD = /[\p{L}\p{N}]/u;

/** `text` as inert markdown for one table cell or line (see the module comment). */
export function escapeMarkdown(text: string): string {
  return escapeUntrusted(text)
    .replace(/[\\`*[\]|~$_]/g, (c, at: number, s: string) =>
      c === '_' && WORD.test(s[at - 1] ?? '') && WORD.test(s[at + 1] ?? '') ? c : `\\${c}`,
    )
    .replace(
      /^(\s*)(#{1,6}(?=\s|$)|[-+](?=\s|$)|[-=]+(?=\s*$)|\d{1,9}(?=[.)](?:\s|$)))/,
      (_, space: string, lead: string) => (/\d/.test(lead) ? `${space}${lead}\\` : `${space}\\${lead}`),
    )
    .replace(/([A-Za-z][A-Za-z0-9+.-]*):(?=\/\/)|\b(mailto|xmpp):/gi, (m) => `${m.slice(0, -1)}\\:`)
    .replace(/\b(www)\./gi, '$1\\.')
    .replace(/#(?=\d)/g, '\\#')
    .replace(/[&<>@]/g, (c) => ENTITY[c]!);
}
