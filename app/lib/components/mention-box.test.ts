import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import MentionBox from './MentionBox.svelte';
import { MENTION_MEMBERS, MentionMembers } from '../workbench/mention-members.svelte.ts';

const team = [
  { userId: 'me', name: 'Demo Author', email: 'demo@example.test' },
  { userId: 'e', name: 'Erin Editor', email: 'erin@example.test' },
  { userId: 's1', name: 'Sam Owner', email: 'sam.o@example.test' },
  { userId: 's2', name: 'Sam Viewer', email: 'sam.v@example.test' },
];

function shown(value: string): string {
  const { body } = render(MentionBox, { props: { value, testid: 'box' }, context: new Map([[MENTION_MEMBERS, new MentionMembers('me', team)]]) });
  return body.replace(/<!--[^>]*-->/g, '');
}

describe('MentionBox', () => {
  it('says who a unique first name will notify', () => {
    expect(shown('@Erin please look')).toMatch(/data-testid="mention-will-notify"[^>]*>Will notify: Erin Editor</u);
  });

  it('says a first name two members share notifies nobody, and names both', () => {
    const body = shown('@Sam please look');
    expect(body).not.toContain('mention-will-notify');
    expect(body).toMatch(/data-testid="mention-ambiguous"[^>]*>“@Sam” could be Sam Owner, Sam Viewer: nobody will be notified/u);
  });

  it('never says the author will be notified of their own comment', () => {
    expect(shown('note to self @Demo')).not.toContain('mention-will-notify');
  });
});
