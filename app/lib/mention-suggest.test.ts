import { describe, expect, it } from 'vitest';
import { insertMention, mentionLabel, mentionQueryAt, suggestMembers } from './mention-suggest.ts';

const team = [
  { userId: 'e', name: 'Erin Editor', email: 'erin@example.test' },
  { userId: 'o', name: 'Demo Author', email: 'demo@example.test' },
  { userId: 'v', name: 'Victor Viewer', email: 'victor@example.test' },
  { userId: 'v2', name: 'Victor Viewer', email: 'victor2@example.test' },
];

describe('mention suggestions', () => {
  it('finds the "@query" at the caret, and nothing inside an email or after a line break', () => {
    expect(mentionQueryAt('hi @Er', 6)).toEqual({ start: 3, query: 'Er' });
    expect(mentionQueryAt('@', 1)).toEqual({ start: 0, query: '' });
    expect(mentionQueryAt('@Erin Ed', 8)).toEqual({ start: 0, query: 'Erin Ed' });
    expect(mentionQueryAt('mail me@ex', 10)).toBeNull();
    expect(mentionQueryAt('@Erin\nnext', 10)).toBeNull();
    expect(mentionQueryAt('@Erin said it was fine', 22)).toBeNull();
  });

  it('suggests members by the start of their name, any word of it, or their email', () => {
    expect(suggestMembers(team, 'er').map((m) => m.userId)).toEqual(['e']);
    expect(suggestMembers(team, 'auth').map((m) => m.userId)).toEqual(['o']);
    expect(suggestMembers(team, 'demo@').map((m) => m.userId)).toEqual(['o']);
    expect(suggestMembers(team, '').length).toBe(4);
  });

  it('inserts a mention that names one person', () => {
    expect(mentionLabel(team[0]!, team)).toBe('Erin Editor');
    expect(mentionLabel(team[2]!, team)).toBe('victor@example.test');
    expect(insertMention('hi @Er thanks', 3, 6, 'Erin Editor')).toEqual({ text: 'hi @Erin Editor thanks', caret: 16 });
  });
});
