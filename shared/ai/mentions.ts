/**
 * Who a comment @mentions: project members named after an "@" by their email, their name
 * (case-insensitive, the name may contain spaces: "@Ana Lima") or their first name alone ("@Ana")
 * when no other member shares it, not followed by more of a word. A first name two members share
 * notifies neither of them: it is reported as ambiguous, and the full name or email is needed.
 * The session's Durable Object reads it to decide who is notified; the workbench reads the same
 * function to show, under the comment box, who will be.
 */
export interface Mentionable {
  userId: string;
  name: string;
  email: string;
}

export interface MentionReading<M extends Mentionable> {
  /** The members notified, in the order of `members`. */
  members: M[];
  /** First names typed after "@" that two or more members share (as typed), each once. */
  ambiguous: Array<{ typed: string; members: M[] }>;
}

/** Before the "@": the start, or a character that cannot be part of an address or a word. */
const WORD_BEFORE = /[\p{L}\p{N}_.@-]/u;
/** After the name: not more of a word, nor a dot that continues one (an email's domain). */
const AFTER = '(?![\\p{L}\\p{N}_@-]|\\.[\\p{L}\\p{N}])';

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `text` (any case) starts at `at` in `body` and ends there as a whole word. */
function namesAt(body: string, at: number, text: string): boolean {
  if (text.trim() === '') return false;
  const pattern = new RegExp(`${escape(text)}${AFTER}`, 'iuy');
  pattern.lastIndex = at;
  return pattern.test(body);
}

/** A member's first name: the first word of their name. */
export function firstName(member: Mentionable): string {
  return member.name.trim().split(/\s+/u)[0] ?? '';
}

export function readMentions<M extends Mentionable>(body: string, members: readonly M[]): MentionReading<M> {
  const found = new Set<string>();
  const ambiguous = new Map<string, { typed: string; members: M[] }>();
  if (!body.includes('@')) return { members: [], ambiguous: [] };
  for (let at = body.indexOf('@'); at !== -1; at = body.indexOf('@', at + 1)) {
    if (at > 0 && WORD_BEFORE.test(body[at - 1]!)) continue;
    const start = at + 1;
    const named = members.filter((m) => namesAt(body, start, m.email) || namesAt(body, start, m.name));
    if (named.length > 0) {
      for (const m of named) found.add(m.userId);
      continue;
    }
    const byFirst = members.filter((m) => namesAt(body, start, firstName(m)));
    if (byFirst.length === 1) found.add(byFirst[0]!.userId);
    else if (byFirst.length > 1) {
      const typed = body.slice(start, start + firstName(byFirst[0]!).length);
      const key = typed.toLowerCase();
      if (!ambiguous.has(key)) ambiguous.set(key, { typed, members: byFirst });
    }
  }
  return { members: members.filter((m) => found.has(m.userId)), ambiguous: [...ambiguous.values()] };
}

export function mentionedMembers<M extends Mentionable>(body: string, members: readonly M[]): M[] {
  return readMentions(body, members).members;
}
