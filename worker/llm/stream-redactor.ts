// Redacts known secrets in streamed text whose pieces arrive one delta at a time: a key split across
// deltas (or spelled out, base64, URL-encoded, hex) passes the check of each piece, so a tail that is the
// start of an echo is held back until the next delta shows whether it is one.

import { REDACTED } from './redact.ts';
import { replaceRanges, secretMatcher, type SecretMatcher } from './secret-forms.ts';

export class StreamRedactor {
  readonly #matcher: SecretMatcher;
  readonly #emit: (text: string) => void;
  #pending = '';

  /** `emit` gets the text in order, redacted; nothing is emitted twice or lost once `flush()` has run. */
  constructor(knownSecrets: readonly string[], emit: (text: string) => void) {
    this.#matcher = secretMatcher(knownSecrets);
    this.#emit = emit;
  }

  push(text: string): void {
    if (!text) return;
    this.#pending += text;
    this.#release(false);
  }

  /** The end of the stream: what was held back goes out, redacted. */
  flush(): void {
    this.#release(true);
  }

  #release(all: boolean): void {
    const text = this.#pending;
    if (!text) return;
    // Only a tail that is the start of some form of the key is held back; ordinary text flows on.
    const { ranges, hold } = this.#matcher.scan(text);
    let cut = all ? text.length : hold;
    // An echo found across the cut goes out whole, once: keep it back with the tail.
    const across = ranges.find((r) => r.start < cut && r.end > cut);
    if (across) cut = across.start;
    if (cut === 0) return;
    this.#pending = text.slice(cut);
    const released = replaceRanges(text.slice(0, cut), ranges.filter((r) => r.end <= cut), REDACTED);
    this.#emit(released);
  }
}
