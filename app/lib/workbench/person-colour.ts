/** A person's colour and initials for avatars and remote cursors: stable per user id, the same in every browser. */

/** Colours readable as text on white and as a caret on the editor's background. */
export const PALETTE = ['#2563eb', '#db2777', '#059669', '#d97706', '#7c3aed', '#dc2626', '#0891b2', '#4d7c0f'] as const;

export const AI_COLOUR = '#6d28d9';

export function colourOf(userId: string): string {
  let hash = 0;
  for (let i = 0; i < userId.length; i++) hash = (hash * 31 + userId.charCodeAt(i)) >>> 0;
  return PALETTE[hash % PALETTE.length]!;
}

/** A colour faded for a selection background (y-codemirror.next's `colorLight`). */
export function faded(colour: string): string {
  return `${colour}33`;
}

/** The person's colour, faded for a selection background. */
export function lightColourOf(userId: string): string {
  return faded(colourOf(userId));
}

export function initialsOf(name: string): string {
  const words = name.trim().split(/\s+/u).filter(Boolean);
  const letters = words.length > 1 ? [words[0]![0], words.at(-1)![0]] : [...(words[0] ?? '?')].slice(0, 2);
  return letters.join('').toUpperCase();
}
