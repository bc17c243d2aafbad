/**
 * The project's members as the workbench's comment boxes offer them after "@" (MentionBox.svelte):
 * read once per workbench from the members list (every role may read it), minus the person
 * writing, who is never notified of their own comment. Handed down by context.
 */
import { getContext, setContext } from 'svelte';
import type { Mentionable } from '../../../shared/ai/mentions.ts';
import { api } from '../api.ts';

/** The context key (a render in a test passes the members under it). */
export const MENTION_MEMBERS = Symbol('mention-members');

export class MentionMembers {
  #all = $state.raw<Mentionable[]>([]);
  readonly #me: string | null;

  constructor(me: string | null, members: Mentionable[] = []) {
    this.#me = me;
    this.#all = members;
  }

  /** Everyone on the project (the server matches mentions against all of them). */
  get all(): Mentionable[] {
    return this.#all;
  }
  /** Those a comment can notify: everyone but its author. */
  get others(): Mentionable[] {
    return this.#all.filter((m) => m.userId !== this.#me);
  }
  get me(): string | null {
    return this.#me;
  }

  async load(projectId: string): Promise<void> {
    const result = await api.members.list(projectId);
    if (result.ok) this.#all = result.data.members.map(({ userId, name, email }) => ({ userId, name, email }));
  }
}

export function setMentionMembers(members: MentionMembers): void {
  setContext(MENTION_MEMBERS, members);
}

/** The workbench's members, or null outside a workbench (the box then offers no suggestions). */
export function getMentionMembers(): MentionMembers | null {
  return getContext<MentionMembers | undefined>(MENTION_MEMBERS) ?? null;
}
