import { describe, expect, it } from 'vitest';
import { mentionedMembers } from './mentions.ts';

const members = [
  { userId: 'u1', name: 'Ana Lima', email: 'ana@example.test' },
  { userId: 'u2', name: 'Anna', email: 'anna@example.test' },
  { userId: 'u3', name: 'Bo', email: 'bo@example.test' },
];

describe('mentionedMembers', () => {
  it('finds members by name (with spaces, any case) or by email, and not by a longer word', () => {
    expect(mentionedMembers('@ana lima and @BO@example.test, look.', members).map((m) => m.userId)).toEqual(['u1', 'u3']);
    expect(mentionedMembers('cc @Anna.', members).map((m) => m.userId)).toEqual(['u2']);
    expect(mentionedMembers('@Annabel and mail@bo.com and plain text', members)).toEqual([]);
  });
});
