/**
 * The inline styles y-codemirror.next writes on other people's carets and selections in the shared
 * draft. It sets them as `style` attributes, which the page policy refuses unless each exact value
 * is listed by hash (`style-src-attr 'unsafe-hashes'`, svelte.config.js); colours come only from
 * the palette, the AI's colour and the library's default, so the list is complete and short. A
 * colour from anywhere else (a hand-made client) is refused by the browser and shows uncoloured.
 * Plain TypeScript with relative imports only: svelte.config.js imports it under Node.
 */
import { AI_COLOUR, PALETTE, faded } from './person-colour.ts';

/** y-codemirror.next's colour for a state without one. */
const LIBRARY_DEFAULT = '#30bced';

export function caretStyles(): string[] {
  return [...PALETTE, AI_COLOUR, LIBRARY_DEFAULT].flatMap((colour) => [
    // The caret (YRemoteCaretWidget) and the selection (the marks and line decorations).
    `background-color: ${colour}; border-color: ${colour}`,
    `background-color: ${faded(colour)}`,
  ]);
}
