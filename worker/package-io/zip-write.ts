/**
 * Writes an export's zip: fflate's streaming `Zip` lays out the headers and the central directory,
 * and each entry is compressed by the runtime's native deflate (node:zlib, level 6 as before) with
 * its native CRC-32. fflate's own `zipSync` deflates in JavaScript, which was half of a 10 MB export.
 * workerd implements both node:zlib calls under nodejs_compat, as the import's inflate relies on.
 */
import { crc32, deflateRawSync } from 'node:zlib';
import { Zip, type ZipInputFile } from 'fflate';

/** A zip of `entries` (path → bytes), each deflated at `level`. */
export function zipEntries(entries: Iterable<readonly [string, Uint8Array]>, level = 6): Uint8Array {
  const chunks: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, chunk) => {
    if (error) failure ??= error;
    else chunks.push(chunk);
  });
  for (const [filename, bytes] of entries) {
    const file: ZipInputFile = { filename, size: bytes.byteLength, crc: crc32(bytes) >>> 0, compression: 8 };
    zip.add(file);
    // add() has set ondata; the whole entry goes in as one final chunk, already deflated.
    file.ondata!(null, deflateRawSync(bytes, { level }), true);
  }
  zip.end();
  if (failure) throw failure;
  let length = 0;
  for (const chunk of chunks) length += chunk.byteLength;
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
