/**
 * Which changed files the reader has open in the Changes pane. A file they have not touched takes
 * the default when it is first shown (open while the change has three files or fewer) and keeps
 * it; their choice holds too. Both last across every refresh of the pane while the file is in the
 * change: a validation, a new version (one that adds or drops files crosses three either way) or
 * another file taken as current re-renders the row, and an `open` written as an attribute would
 * fold what they had just opened.
 */
import type { Attachment } from 'svelte/attachments';
import { SvelteMap } from 'svelte/reactivity';

/** Past this many files the pane starts with them folded. */
export const OPEN_UP_TO = 3;

export class FileFolds {
  readonly #chosen = new SvelteMap<string, boolean>();
  /** The default each file was first shown with (not reactive: it never changes once set). */
  readonly #shown = new Map<string, boolean>();
  readonly #attachments = new Map<string, Attachment<HTMLDetailsElement>>();
  readonly #fileCount: () => number;

  constructor(fileCount: () => number) {
    this.#fileCount = fileCount;
  }

  isOpen(key: string): boolean {
    return this.#chosen.get(key) ?? this.#firstShown(key);
  }

  #firstShown(key: string): boolean {
    let open = this.#shown.get(key);
    if (open === undefined) {
      open = this.#fileCount() <= OPEN_UP_TO;
      this.#shown.set(key, open);
    }
    return open;
  }

  /** Forget the files no longer in the change: one that comes back later is a new file to the pane. */
  keepOnly(keys: Iterable<string>): void {
    const present = new Set(keys);
    for (const key of [...this.#shown.keys(), ...this.#chosen.keys()]) {
      if (present.has(key)) continue;
      this.#shown.delete(key);
      this.#chosen.delete(key);
      this.#attachments.delete(key);
    }
  }

  open(key: string): void {
    this.#chosen.set(key, true);
  }

  /** The `toggle` event of a file's `<details>`: a change the pane did not make is the reader's. */
  toggled(key: string, open: boolean): void {
    if (open !== this.isOpen(key)) this.#chosen.set(key, open);
  }

  /**
   * The attachment that keeps a `<details>` in step, writing `open` only when the answer changes.
   * One function per key, so a re-rendered row keeps its attachment instead of running it again.
   */
  attach(key: string): Attachment<HTMLDetailsElement> {
    let attachment = this.#attachments.get(key);
    if (!attachment) {
      attachment = (details) => {
        const open = $derived(this.isOpen(key));
        $effect(() => {
          details.open = open;
        });
      };
      this.#attachments.set(key, attachment);
    }
    return attachment;
  }
}
