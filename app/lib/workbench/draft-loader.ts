/**
 * One shared draft copy (draft-sync.ts) per live feed, loaded on demand: the first open editor
 * imports Yjs and connects it, the last one to close destroys it. Keeps Yjs out of the
 * workbench's first load.
 */
import type { DraftSync } from './draft-sync.ts';
import type { LiveFeed } from './live-feed.svelte.ts';
import { colourOf, lightColourOf } from './person-colour.ts';

const shared = new WeakMap<LiveFeed, { sync: Promise<DraftSync>; users: number }>();

export interface DraftUser {
  userId: string;
  name: string;
  canEdit: boolean;
}

export function acquireDraft(feed: LiveFeed, user: DraftUser): { sync: Promise<DraftSync>; release(): void } {
  let entry = shared.get(feed);
  if (!entry) {
    const sync = import('./draft-sync.ts').then(
      ({ DraftSync }) => new DraftSync(feed, { name: user.name, color: colourOf(user.userId), colorLight: lightColourOf(user.userId) }, user.canEdit),
    );
    entry = { sync, users: 0 };
    shared.set(feed, entry);
  }
  entry.users++;
  const held = entry;
  let released = false;
  return {
    sync: held.sync,
    release() {
      if (released) return;
      released = true;
      held.users--;
      if (held.users === 0 && shared.get(feed) === held) {
        shared.delete(feed);
        void held.sync.then((s) => s.destroy());
      }
    },
  };
}
