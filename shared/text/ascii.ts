/**
 * Whether a text is all ASCII, answered by the runtime's native UTF-8 encoder (TextEncoder, in
 * browsers, Workers and Node alike): encoded into a buffer of the text's own length, a text with
 * any character outside ASCII (two or more UTF-8 bytes) runs out of room before its end. On long
 * texts it is many times faster than a regex scan or a charCodeAt loop, which were most of telling
 * a 10 MB package's language and of estimating a turn's prompt tokens on every model request.
 */
const encoder = new TextEncoder();
/** The most a kept buffer grows to (a package text file's limit); a longer text gets one of its own for the call. */
const KEPT_BYTES = 1024 * 1024;
/** Reused between calls (they are synchronous), grown to the longest text seen up to KEPT_BYTES. */
let scratch = new Uint8Array(0);

export function isAscii(text: string): boolean {
  if (scratch.length < text.length && text.length <= KEPT_BYTES) scratch = new Uint8Array(Math.max(text.length, 64 * 1024));
  const buffer = text.length <= scratch.length ? scratch.subarray(0, text.length) : new Uint8Array(text.length);
  const { read, written } = encoder.encodeInto(text, buffer);
  return read === text.length && written === text.length;
}
