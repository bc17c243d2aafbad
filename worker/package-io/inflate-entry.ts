/**
 * Reads one zip entry's bytes without trusting what the zip declares: the deflate stream is
 * inflated with a hard output cap (the declared size, the per-file limit or what is left of the
 * package's total, whichever is smallest, plus a small margin) and stopped soon after it passes
 * it; the output is then held to that limit exactly; the stream must reach its final block, and the produced size and CRC-32 must equal the declared ones. Stored (method 0)
 * entries get the same checks. A lying central directory once made a 1 GiB inflate block the Worker.
 */
// node:zlib, not fflate: its inflate with `maxOutputLength` stops at the first output chunk past the
// cap (fflate's only bounded way was a streaming Inflate fed 4 KiB at a time, which allocated and
// copied a 160 KiB window per entry and made unzipping ~6× fflate's own unzipSync), and its native
// CRC-32 replaces a JavaScript pass over every byte. workerd implements both under nodejs_compat.
import { crc32, inflateRawSync } from 'node:zlib';
import { entryDataRange, type ZipEntryInfo } from './zip-entries.ts';
import type { ErrorDetail } from '../../shared/errors.ts';

export interface EntryBudget {
  /** The per-file limit (IMPORT_LIMITS.maxFileBytes). */
  maxFileBytes: number;
  /** What the package may still produce in total (maxUnpackedBytes minus the entries before). */
  totalLeft: number;
}

export type EntryFailureCode = 'PKG_ENTRY_SIZE_MISMATCH' | 'PKG_CRC_MISMATCH' | 'PKG_ENTRY_TRUNCATED' | 'PKG_TOO_LARGE' | 'PKG_INVALID_ZIP';

export type EntryBytes =
  | { ok: true; bytes: Uint8Array }
  /**
   * `produced`: bytes inflated before it stopped, so a test can see it stopped early. Past the cap
   * the inflater throws without saying how far it got, so it is then the cap: "more than the limit".
   */
  | { ok: false; code: EntryFailureCode; message: string; details: ErrorDetail[]; produced: number };

const REBUILD = 'Rebuild the zip from the package folder; if it came from somewhere else, download it again.';

/** Room past the limit for workerd's chunked output buffer (see the inflate below): two of its largest chunks. */
const INFLATE_MARGIN = 128 * 1024;

/** zlib's own message for a stream that stops before its final block (the same in Node and workerd). */
const ZLIB_TRUNCATED = 'unexpected end of file';

export function readEntryBytes(zip: Uint8Array, entry: ZipEntryInfo, budget: EntryBudget): EntryBytes {
  const fail = (code: EntryFailureCode, message: string, produced: number): EntryBytes => ({
    ok: false,
    code,
    message,
    details: [{ path: entry.name, message, ...(code === 'PKG_TOO_LARGE' ? {} : { hint: REBUILD }) }],
    produced,
  });
  const range = entryDataRange(zip, entry);
  if (!range.ok) {
    return range.reason === 'cut'
      ? fail('PKG_ENTRY_TRUNCATED', `${entry.name} runs past the end of the zip.`, 0)
      : fail('PKG_INVALID_ZIP', `${entry.name} could not be found where the zip says it is.`, 0);
  }
  const data = zip.subarray(range.start, range.end);
  const limit = Math.min(entry.size, budget.maxFileBytes, budget.totalLeft);
  // The tightest bound names the failure: past the declared size the zip lied; past the others the package is too large.
  const overLimit = (produced: number): EntryBytes =>
    limit === entry.size
      ? fail('PKG_ENTRY_SIZE_MISMATCH', `${entry.name} unpacks to more than the ${entry.size} bytes the zip declares.`, produced)
      : limit === budget.maxFileBytes
        ? fail('PKG_TOO_LARGE', `${entry.name} is larger than ${budget.maxFileBytes / 1024 / 1024} MB.`, produced)
        : fail('PKG_TOO_LARGE', `${entry.name} takes the package past its unpacked size limit.`, produced);

  let bytes: Uint8Array;
  if (entry.method === 0) {
    bytes = data;
  } else {
    if (data.length === 0) return fail('PKG_ENTRY_TRUNCATED', `${entry.name} has no compressed data.`, 0);
    try {
      // workerd's inflate checks its cap against the output buffer it has allocated, which grows in
      // chunks of up to 64 KiB, not against the bytes produced: a cap of the limit itself (or a byte
      // more) refused honest files of exactly their declared size once they spanned a chunk (~40 KB
      // on). So the cap leaves INFLATE_MARGIN of room and the check below holds the output to the
      // limit; a bomb still stops within the margin. (The cap is also never 0, which zlib refuses.)
      bytes = inflateRawSync(data, { maxOutputLength: limit + INFLATE_MARGIN });
    } catch (error) {
      // Past the cap both Node and workerd throw a RangeError (a bomb stops here, near the cap).
      if (error instanceof RangeError) return overLimit(limit + INFLATE_MARGIN);
      if ((error as Error).message === ZLIB_TRUNCATED) {
        return fail('PKG_ENTRY_TRUNCATED', `${entry.name} is cut short: its compressed data ends too early.`, 0);
      }
      return fail('PKG_INVALID_ZIP', `${entry.name} holds damaged compressed data.`, 0);
    }
  }
  const produced = bytes.length;
  if (produced > limit) return overLimit(produced);
  if (produced !== entry.size) {
    return fail('PKG_ENTRY_SIZE_MISMATCH', `${entry.name} unpacks to ${produced} bytes, not the ${entry.size} the zip declares.`, produced);
  }
  if (crc32(bytes) >>> 0 !== entry.crc32) {
    return fail('PKG_CRC_MISMATCH', `${entry.name} is damaged: its CRC-32 checksum does not match its contents.`, produced);
  }
  return { ok: true, bytes };
}
