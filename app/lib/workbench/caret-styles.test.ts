import { describe, expect, it } from 'vitest';
import { AI_AWARENESS } from '../../../shared/protocol.ts';
import { caretStyles } from './caret-styles.ts';
import { colourOf, lightColourOf } from './person-colour.ts';

describe('caret styles the page policy allows', () => {
  it('covers every colour a caret or selection in the shared draft is given: people, the AI', () => {
    const allowed = new Set(caretStyles());
    for (const userId of ['u-1', 'u-2', 'another person', '0f3c2a', 'x'.repeat(40)]) {
      expect(allowed).toContain(`background-color: ${colourOf(userId)}; border-color: ${colourOf(userId)}`);
      expect(allowed).toContain(`background-color: ${lightColourOf(userId)}`);
    }
    const ai = AI_AWARENESS.user;
    expect(allowed).toContain(`background-color: ${ai.color}; border-color: ${ai.color}`);
    expect(allowed).toContain(`background-color: ${ai.colorLight}`);
  });
});
