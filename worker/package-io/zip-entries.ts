/**
 * Reads a zip's central directory without decompressing anything, so every entry can be vetted
 * (names, sizes, ratio, duplicates, symlinks, encryption, ZIP64) before a byte is inflated, and
 * finds where each entry's compressed bytes sit. The central directory is the one source of
 * truth for sizes and CRC-32; inflate-entry.ts holds the entry to them.
 */

export interface ZipEntryInfo {
  name: string;
  compressedSize: number;
  /** Declared uncompressed size and CRC-32: claims to check, not facts. */
  size: number;
  crc32: number;
  method: number;
  localHeaderOffset: number;
  isDirectory: boolean;
  isSymlink: boolean;
  isEncrypted: boolean;
}

export type CentralDirectory = { ok: true; entries: ZipEntryInfo[] } | { ok: false; reason: string };

const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
/** A 32-bit field set to all ones means "the real value is in the ZIP64 extra field". */
const ZIP64_MARK = 0xffffffff;
const ZIP64_REFUSED = 'ZIP64 archives are not supported (a package is far smaller than 4 GB)';
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

export function readCentralDirectory(zip: Uint8Array): CentralDirectory {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  // The end-of-central-directory record sits in the last 22 + 65535 (comment) bytes.
  let eocd = -1;
  for (let i = zip.byteLength - 22; i >= Math.max(0, zip.byteLength - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === EOCD_SIGNATURE) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return { ok: false, reason: 'no zip directory was found (the file is not a zip, or it is cut short)' };
  const count = view.getUint16(eocd + 10, true);
  const size = view.getUint32(eocd + 12, true);
  const offset = view.getUint32(eocd + 16, true);
  const zip64Locator = eocd >= 20 && view.getUint32(eocd - 20, true) === ZIP64_LOCATOR_SIGNATURE;
  if (zip64Locator || count === 0xffff || offset === ZIP64_MARK) return { ok: false, reason: ZIP64_REFUSED };
  if (offset + size > eocd) return { ok: false, reason: 'the zip directory points outside the file' };
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  const entries: ZipEntryInfo[] = [];
  let p = offset;
  for (let n = 0; n < count; n++) {
    if (p + 46 > zip.byteLength || view.getUint32(p, true) !== CENTRAL_SIGNATURE) {
      return { ok: false, reason: 'the zip directory is damaged' };
    }
    const flags = view.getUint16(p + 8, true);
    const method = view.getUint16(p + 10, true);
    const crc32 = view.getUint32(p + 16, true);
    const compressedSize = view.getUint32(p + 20, true);
    const uncompressed = view.getUint32(p + 24, true);
    const localHeaderOffset = view.getUint32(p + 42, true);
    if (compressedSize === ZIP64_MARK || uncompressed === ZIP64_MARK || localHeaderOffset === ZIP64_MARK) {
      return { ok: false, reason: ZIP64_REFUSED };
    }
    const nameLength = view.getUint16(p + 28, true);
    const extraLength = view.getUint16(p + 30, true);
    const commentLength = view.getUint16(p + 32, true);
    const madeBy = view.getUint16(p + 4, true) >> 8;
    const external = view.getUint32(p + 38, true);
    if (p + 46 + nameLength > zip.byteLength) return { ok: false, reason: 'the zip directory is damaged' };
    let name: string;
    try {
      name = decoder.decode(zip.subarray(p + 46, p + 46 + nameLength));
    } catch {
      return { ok: false, reason: 'a file name in the zip is not valid UTF-8' };
    }
    // Unix hosts (3) keep the file mode in the upper 16 bits of the external attributes.
    const mode = madeBy === 3 ? external >>> 16 : 0;
    entries.push({
      name,
      compressedSize,
      size: uncompressed,
      crc32,
      method,
      localHeaderOffset,
      isDirectory: name.endsWith('/'),
      isSymlink: (mode & S_IFMT) === S_IFLNK,
      isEncrypted: (flags & 1) === 1,
    });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return { ok: true, entries };
}

/**
 * Where an entry's compressed bytes sit: after its local header, whose name and extra field
 * lengths may differ from the central directory's. `cut` when they run past the end of the file.
 */
export function entryDataRange(
  zip: Uint8Array,
  entry: ZipEntryInfo,
): { ok: true; start: number; end: number } | { ok: false; reason: 'damaged' | 'cut' } {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const header = entry.localHeaderOffset;
  if (header + 30 > zip.byteLength || view.getUint32(header, true) !== LOCAL_SIGNATURE) return { ok: false, reason: 'damaged' };
  const start = header + 30 + view.getUint16(header + 26, true) + view.getUint16(header + 28, true);
  const end = start + entry.compressedSize;
  if (end > zip.byteLength) return { ok: false, reason: 'cut' };
  return { ok: true, start, end };
}
