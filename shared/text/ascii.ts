/**
 * Whether a text is all ASCII, answered by the runtime's native UTF-8 encoder (TextEncoder, in
 * browsers, Workers and Node alike): encoded into a buffer of the text's own length, a text with
 * any character outside ASCII (two or more UTF-8 bytes) runs out of room before its end. On long
 * texts it is many times faster than a regex scan or a charCodeAt loop, which were most of telling
 * a 10 MB package's language and of estimating a turn's prompt tokens on every model request.
 */
const encoder = new TextEncoder();
/** Reused between calls (they are synchronous); grown to the longest text seen. */
let scratch = new Uint8Array(0);

export function isAscii(text: string): boolean {
  if (scratch.length < text.length) scratch = new Uint8Array(Math.max(text.length, 64 * 1024));
  const { read, written } = encoder.encodeInto(text, scratch.subarray(0, text.length));
  return read === text.length && written === text.length;
}
