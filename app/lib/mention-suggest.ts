/**
 * The @-suggestions of a comment box, DOM-free: the "@query" being typed at the caret, the
 * members it may mean, and the text once one is picked (their full name, or their email when
 * two members share that name, so the mention always names one person).
 */
import type { Mentionable } from '../../shared/ai/mentions.ts';

/** The "@…" the caret is in: where its "@" is and what follows it (null: not in one). */
export function mentionQueryAt(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const at = before.lastIndexOf('@');
  if (at === -1) return null;
  if (at > 0 && /[\p{L}\p{N}_.@-]/u.test(before[at - 1]!)) return null;
  const query = before.slice(at + 1);
  // A name may hold one space ("@Erin Ed"); a line break or a second space ends the query.
  if (/[\n\r]/u.test(query) || /\s\S*\s/u.test(query) || query.length > 40) return null;
  return { start: at, query };
}

/** Members whose name (any word of it) or email starts with `query`, best first; at most `limit`. */
export function suggestMembers<M extends Mentionable>(members: readonly M[], query: string, limit = 6): M[] {
  const q = query.trim().toLowerCase();
  const rank = (m: M): number => {
    const name = m.name.toLowerCase();
    if (q === '' || name.startsWith(q)) return 0;
    if (name.split(/\s+/u).some((word) => word.startsWith(q))) return 1;
    if (m.email.toLowerCase().startsWith(q)) return 2;
    return -1;
  };
  return members
    .map((m) => ({ m, r: rank(m) }))
    .filter((x) => x.r >= 0)
    .sort((a, b) => a.r - b.r || a.m.name.localeCompare(b.m.name))
    .slice(0, limit)
    .map((x) => x.m);
}

/** The words that name `member` alone: their name, or their email when another member shares the name. */
export function mentionLabel(member: Mentionable, members: readonly Mentionable[]): string {
  const shared = members.some((m) => m.userId !== member.userId && m.name.trim().toLowerCase() === member.name.trim().toLowerCase());
  return shared || member.name.trim() === '' ? member.email : member.name.trim();
}

/** `text` with the "@query" from `start` to `caret` replaced by the member's mention and a space. */
export function insertMention(text: string, start: number, caret: number, label: string): { text: string; caret: number } {
  const inserted = `@${label} `;
  const after = text.slice(caret).replace(/^ /u, '');
  return { text: text.slice(0, start) + inserted + after, caret: start + inserted.length };
}
