/**
 * Writes zip files byte by byte (local headers, central directory, end record) so a test can
 * lie about what fflate's zipSync always gets right: sizes, CRC-32, flags, Unix modes, ZIP64
 * markers. The CRC-32 here is its own table-driven copy, an oracle independent of the product.
 */
import { deflateSync, strToU8 } from 'fflate';

export interface RawEntry {
  name: string;
  /** The bytes as they sit in the zip: deflated when method is 8, the content itself when 0. */
  data: Uint8Array;
  method: number;
  /** Declared uncompressed size and CRC-32 (written to both the local and the central header). */
  size: number;
  crc: number;
  /** Declared compressed size; defaults to data.length. */
  compressedSize?: number;
  flags?: number;
  /** Written as made-by Unix with this mode in the upper half of the external attributes. */
  unixMode?: number;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** An honest deflated entry; `lie` overrides any declared field. */
export function deflated(name: string, content: Uint8Array | string, lie: Partial<RawEntry> = {}): RawEntry {
  const bytes = typeof content === 'string' ? strToU8(content) : content;
  return { name, data: deflateSync(bytes), method: 8, size: bytes.length, crc: crc32(bytes), ...lie };
}

/** An honest stored (method 0) entry; `lie` overrides any declared field. */
export function stored(name: string, content: Uint8Array | string, lie: Partial<RawEntry> = {}): RawEntry {
  const bytes = typeof content === 'string' ? strToU8(content) : content;
  return { name, data: bytes, method: 0, size: bytes.length, crc: crc32(bytes), ...lie };
}

/** Every file of a package as honest deflated entries. */
export function packageEntries(files: Record<string, string>): RawEntry[] {
  return Object.entries(files).map(([path, text]) => deflated(path, text));
}

export interface EndRecord {
  /** Overrides the entry count in the end record (0xffff marks ZIP64). */
  count?: number;
  /** Writes a ZIP64 end-of-central-directory locator just before the end record. */
  zip64Locator?: boolean;
}

export function buildZip(entries: RawEntry[], end: EndRecord = {}): Uint8Array {
  const parts: Uint8Array[] = [];
  let offset = 0;
  const push = (bytes: Uint8Array) => {
    parts.push(bytes);
    offset += bytes.length;
  };
  const central: Uint8Array[] = [];
  for (const e of entries) {
    const name = strToU8(e.name);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint16(6, e.flags ?? 0, true);
    local.setUint16(8, e.method, true);
    local.setUint16(12, 0x21, true); // 1980-01-01
    local.setUint32(14, e.crc >>> 0, true);
    local.setUint32(18, e.compressedSize ?? e.data.length, true);
    local.setUint32(22, e.size, true);
    local.setUint16(26, name.length, true);
    const header = new DataView(new ArrayBuffer(46));
    header.setUint32(0, 0x02014b50, true);
    header.setUint16(4, e.unixMode === undefined ? 20 : (3 << 8) | 20, true);
    header.setUint16(6, 20, true);
    header.setUint16(8, e.flags ?? 0, true);
    header.setUint16(10, e.method, true);
    header.setUint16(14, 0x21, true);
    header.setUint32(16, e.crc >>> 0, true);
    header.setUint32(20, e.compressedSize ?? e.data.length, true);
    header.setUint32(24, e.size, true);
    header.setUint16(28, name.length, true);
    header.setUint32(38, e.unixMode === undefined ? 0 : (e.unixMode << 16) >>> 0, true);
    header.setUint32(42, offset, true);
    central.push(new Uint8Array(header.buffer), name);
    push(new Uint8Array(local.buffer));
    push(name);
    push(e.data);
  }
  const directoryOffset = offset;
  for (const bytes of central) push(bytes);
  const directorySize = offset - directoryOffset;
  if (end.zip64Locator) {
    const locator = new DataView(new ArrayBuffer(20));
    locator.setUint32(0, 0x07064b50, true);
    locator.setUint32(16, 1, true);
    push(new Uint8Array(locator.buffer));
  }
  const eocd = new DataView(new ArrayBuffer(22));
  eocd.setUint32(0, 0x06054b50, true);
  eocd.setUint16(8, end.count ?? entries.length, true);
  eocd.setUint16(10, end.count ?? entries.length, true);
  eocd.setUint32(12, directorySize, true);
  eocd.setUint32(16, directoryOffset, true);
  push(new Uint8Array(eocd.buffer));
  const out = new Uint8Array(offset);
  let at = 0;
  for (const bytes of parts) {
    out.set(bytes, at);
    at += bytes.length;
  }
  return out;
}
