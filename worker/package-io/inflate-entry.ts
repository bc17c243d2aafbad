/**
 * Reads one zip entry's bytes without trusting what the zip declares: the deflate stream is fed
 * in small pieces and stopped as soon as it produces more than the declared size, the per-file
 * limit or what is left of the package's total; afterwards the stream must have reached its final
 * block, and the produced size and CRC-32 must equal the declared ones. Stored (method 0) entries
 * get the same checks. A lying central directory once made a 1 GiB inflate block the Worker.
 */
import { FlateErrorCode, Inflate, ZipPassThrough, type FlateError } from 'fflate';
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
  /** `produced`: bytes inflated before it stopped, so a test can see it stopped early. */
  | { ok: false; code: EntryFailureCode; message: string; details: ErrorDetail[]; produced: number };

/**
 * Compressed bytes per push. Deflate expands at most ~1032×, so one push produces at most ~4 MiB
 * and a bomb is stopped within ~4 MiB of its limit, while an honest 10 MB file takes a few hundred pushes.
 */
const INPUT_CHUNK = 4096;
const REBUILD = 'Rebuild the zip from the package folder; if it came from somewhere else, download it again.';

/** fflate has no exported crc32; ZipPassThrough is its public streaming CRC-32 (it tracks `crc` for zip writers). */
function crc32Of(parts: Uint8Array[]): number {
  const pass = new ZipPassThrough('');
  pass.ondata = () => {};
  for (const part of parts) pass.push(part);
  pass.push(new Uint8Array(0), true);
  return pass.crc >>> 0;
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

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

  const parts: Uint8Array[] = [];
  let produced = 0;
  if (entry.method === 0) {
    produced = data.length;
    if (produced > limit) return overLimit(produced);
    parts.push(data);
  } else {
    if (data.length === 0) return fail('PKG_ENTRY_TRUNCATED', `${entry.name} has no compressed data.`, 0);
    let over = false;
    const inflater = new Inflate((chunk) => {
      produced += chunk.length;
      if (produced > limit) over = true;
      else if (chunk.length > 0) parts.push(chunk);
    });
    try {
      // The last piece always carries bytes and `final`: fflate then throws on a stream that stops before its final block.
      for (let at = 0; at < data.length && !over; at += INPUT_CHUNK) {
        const end = Math.min(at + INPUT_CHUNK, data.length);
        inflater.push(data.subarray(at, end), end === data.length);
      }
    } catch (error) {
      if ((error as FlateError).code === FlateErrorCode.UnexpectedEOF) {
        return fail('PKG_ENTRY_TRUNCATED', `${entry.name} is cut short: its compressed data ends too early.`, produced);
      }
      return fail('PKG_INVALID_ZIP', `${entry.name} holds damaged compressed data.`, produced);
    }
    if (over) return overLimit(produced);
  }
  if (produced !== entry.size) {
    return fail('PKG_ENTRY_SIZE_MISMATCH', `${entry.name} unpacks to ${produced} bytes, not the ${entry.size} the zip declares.`, produced);
  }
  if (crc32Of(parts) !== entry.crc32) {
    return fail('PKG_CRC_MISMATCH', `${entry.name} is damaged: its CRC-32 checksum does not match its contents.`, produced);
  }
  return { ok: true, bytes: concat(parts, produced) };
}
