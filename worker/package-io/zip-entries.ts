/**
 * Reads a zip's central directory without decompressing anything, so every entry can be vetted
 * (names, sizes, ratio, duplicates, symlinks, encryption) before a byte is inflated. fflate
 * decompresses afterwards; it keys entries by name and does not expose Unix modes, which is
 * why duplicates and symlinks are checked here.
 */

export interface ZipEntryInfo {
  name: string;
  compressedSize: number;
  size: number;
  method: number;
  isDirectory: boolean;
  isSymlink: boolean;
  isEncrypted: boolean;
}

export type CentralDirectory = { ok: true; entries: ZipEntryInfo[] } | { ok: false; reason: string };

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
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
  if (count === 0xffff || offset === 0xffffffff) return { ok: false, reason: 'ZIP64 archives are not supported' };
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
    const compressedSize = view.getUint32(p + 20, true);
    const uncompressed = view.getUint32(p + 24, true);
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
      method,
      isDirectory: name.endsWith('/'),
      isSymlink: (mode & S_IFMT) === S_IFLNK,
      isEncrypted: (flags & 1) === 1,
    });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return { ok: true, entries };
}
