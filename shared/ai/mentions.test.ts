import { describe, expect, it } from 'vitest';
import { mentionedMembers, readMentions } from './mentions.ts';

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

describe('mentions by first name', () => {
  const team = [
    { userId: 'e', name: 'Erin Editor', email: 'erin@example.test' },
    { userId: 's1', name: 'Sam Owner', email: 'sam.o@example.test' },
    { userId: 's2', name: 'Sam Viewer', email: 'sam.v@example.test' },
  ];

  it('notifies the one member whose first name it is', () => {
    expect(mentionedMembers('@Erin can you look?', team).map((m) => m.userId)).toEqual(['e']);
    expect(mentionedMembers('thanks @erin.', team).map((m) => m.userId)).toEqual(['e']);
    expect(mentionedMembers('@Erinna hi', team)).toEqual([]);
  });

  it('notifies nobody for a first name two members share, and says which name was ambiguous', () => {
    const reading = readMentions('@Sam please check', team);
    expect(reading.members).toEqual([]);
    expect(reading.ambiguous).toEqual([{ typed: 'Sam', members: [team[1], team[2]] }]);
  });

  it('still takes a full name or an email where the first name is shared', () => {
    const reading = readMentions('@Sam Viewer and @sam.o@example.test', team);
    expect(reading.members.map((m) => m.userId)).toEqual(['s1', 's2']);
    expect(reading.ambiguous).toEqual([]);
  });
});
