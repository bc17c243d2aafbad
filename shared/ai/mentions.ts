/**
 * Who a comment @mentions: project members named by their email or their name after an "@"
 * (case-insensitive, the name may contain spaces: "@Ana Lima"), not followed by more of a word.
 */
export interface Mentionable {
  userId: string;
  name: string;
  email: string;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function mentionedMembers<M extends Mentionable>(body: string, members: readonly M[]): M[] {
  if (!body.includes('@')) return [];
  return members.filter((m) => {
    const names = [m.email, m.name].filter((n) => n.trim() !== '').map(escape);
    if (names.length === 0) return false;
    return new RegExp(`(^|[^\\p{L}\\p{N}_.@-])@(?:${names.join('|')})(?![\\p{L}\\p{N}_@-]|\\.[\\p{L}\\p{N}])`, 'iu').test(body);
  });
}
