/**
 * Unpacks an uploaded `.bmad` zip into a map of text files, refusing anything unsafe before it
 * is inflated: oversize archives, too many entries, bomb-like ratios, traversal (`..`, absolute
 * paths, backslashes, NUL, drive letters), duplicate names, symlinks, encryption, ZIP64. Then
 * each entry is inflated under hard caps and held to its declared size and CRC-32
 * (inflate-entry.ts), and must be UTF-8 text. Folders that wrap everything (`Downloads/pkg/`) are stripped.
 * Expected failures are values.
 */
import { IMPORT_LIMITS } from './limits.ts';
import { readEntryBytes, type EntryFailureCode } from './inflate-entry.ts';
import { readCentralDirectory } from './zip-entries.ts';
import type { ErrorDetail } from '../../shared/errors.ts';

export type UnpackResult =
  | { ok: true; files: Map<string, string>; boms: string[] }
  | { ok: false; code: EntryFailureCode | 'PKG_INVALID_FORMAT'; message: string; details?: ErrorDetail[] };

/**
 * Every text file (a leading UTF-8 BOM taken off its text, its path listed in `boms` so an export
 * can put it back), and the paths of the entries that are not UTF-8 text (left to the caller to
 * refuse or skip).
 */
export type UnpackFilesResult =
  | { ok: true; files: Map<string, string>; binaries: string[]; boms: string[] }
  | { ok: false; code: EntryFailureCode | 'PKG_INVALID_FORMAT'; message: string; details?: ErrorDetail[] };

/**
 * What an operating system leaves in a zip of a folder, never part of a package: macOS's
 * `__MACOSX/` resource forks and `.DS_Store`, Windows's `Thumbs.db` and `desktop.ini`. Skipped
 * (after the safety checks, which still see every entry).
 */
const SYSTEM_LITTER = /(^|\/)(__MACOSX\/|\.DS_Store$|Thumbs\.db$|desktop\.ini$)/i;

function unsafeName(name: string): string | undefined {
  if (name.includes('\0')) return 'contains a NUL character';
  if (name.includes('\\')) return 'contains a backslash';
  if (name.startsWith('/')) return 'is an absolute path';
  if (/^[A-Za-z]:/.test(name)) return 'starts with a drive letter';
  const segments = name.replace(/\/$/, '').split('/');
  if (segments.some((s) => s === '..')) return 'climbs out of the package with ".."';
  if (segments.some((s) => s === '' || s === '.')) return 'has an empty or "." folder';
  return undefined;
}

/** How many folders that hold everything are looked through: more than any honest zip has. */
export const MAX_WRAPPER_FOLDERS = 8;

/**
 * The folders that wrap every file of the zip, down to the one that holds bmad.json: `pkg/` for
 * `pkg/bmad.json`, `Downloads/pkg/` for a zip of the Downloads folder (what zipping a folder, or a
 * browser's "download as zip", gives). '' when the files are at the top.
 */
export function wrapperFolder(names: readonly string[]): string {
  let prefix = '';
  for (let depth = 0; depth < MAX_WRAPPER_FOLDERS && names.length > 0 && !names.includes(`${prefix}bmad.json`); depth++) {
    const first = names[0]!.slice(prefix.length).split('/')[0]!;
    if (names.some((n) => !n.slice(prefix.length).includes('/') || n.slice(prefix.length).split('/')[0] !== first)) break;
    prefix += `${first}/`;
  }
  return prefix;
}

/** A `.bmad` package: text files only, bmad.json at the top. */
export function unpackPackage(zip: Uint8Array): UnpackResult {
  const unpacked = unpackFiles(zip);
  return unpacked.ok ? packageFilesOf(unpacked) : unpacked;
}

/**
 * The `.bmad` reading of an upload `unpackFiles` already inflated (the folders that wrap everything
 * stripped, text files only, bmad.json at the top), so a caller that first sniffs the layout does
 * not inflate every entry a second time.
 */
export function packageFilesOf(unpacked: { files: ReadonlyMap<string, string>; binaries: readonly string[]; boms: readonly string[] }): UnpackResult {
  const prefix = wrapperFolder([...unpacked.files.keys(), ...unpacked.binaries]);
  const strip = (name: string) => name.slice(prefix.length);
  if (unpacked.binaries.length > 0) {
    return {
      ok: false,
      code: 'PKG_INVALID_FORMAT',
      message: 'Some files are not UTF-8 text.',
      details: unpacked.binaries.map((name) => {
        const path = strip(name);
        return { path, message: 'This file is not valid UTF-8 text.', hint: 'Save it as UTF-8; packages hold text files only.' };
      }),
    };
  }
  const files = new Map<string, string>();
  for (const [name, text] of unpacked.files) files.set(strip(name), text);
  if (!files.has('bmad.json')) {
    return {
      ok: false,
      code: 'PKG_INVALID_FORMAT',
      message: 'This zip has no bmad.json at its top level, so it is not a .bmad package.',
      details: [{ path: 'bmad.json', message: 'Missing bmad.json.', hint: 'Export the package from the Builder, or zip the folder that holds bmad.json.' }],
    };
  }
  return { ok: true, files, boms: unpacked.boms.map(strip) };
}

/**
 * Any upload: the guards above, then every entry as text, or listed in `binaries` when it is not
 * UTF-8. A BMAD-METHOD upload keeps its folder names (they are where export writes back to).
 */
export function unpackFiles(zip: Uint8Array): UnpackFilesResult {
  if (zip.byteLength > IMPORT_LIMITS.maxZipBytes) {
    return { ok: false, code: 'PKG_TOO_LARGE', message: `The package is larger than ${IMPORT_LIMITS.maxZipBytes / 1024 / 1024} MB, the limit for one import.` };
  }
  const directory = readCentralDirectory(zip);
  if (!directory.ok) return { ok: false, code: 'PKG_INVALID_ZIP', message: `This is not a usable zip: ${directory.reason}.` };
  const entries = directory.entries.filter((e) => !e.isDirectory && !SYSTEM_LITTER.test(e.name));
  if (directory.entries.length > IMPORT_LIMITS.maxEntries) {
    return { ok: false, code: 'PKG_TOO_LARGE', message: `The package has more than ${IMPORT_LIMITS.maxEntries} entries.` };
  }
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  let total = 0;
  let compressed = 0;
  for (const entry of directory.entries) {
    const why = unsafeName(entry.name);
    if (why) details.push({ path: entry.name, message: `This entry's name ${why}.`, hint: 'Rebuild the zip from the package folder.' });
    if (seen.has(entry.name)) details.push({ path: entry.name, message: 'This entry appears twice in the zip.' });
    seen.add(entry.name);
    if (entry.isSymlink) details.push({ path: entry.name, message: 'This entry is a symbolic link; packages hold plain files only.' });
    if (entry.isEncrypted) details.push({ path: entry.name, message: 'This entry is encrypted.' });
    if (entry.method !== 0 && entry.method !== 8) details.push({ path: entry.name, message: 'This entry uses an unsupported compression method.' });
    total += entry.size;
    if (entry.size > IMPORT_LIMITS.maxFileBytes) {
      return { ok: false, code: 'PKG_TOO_LARGE', message: `${entry.name} is larger than ${IMPORT_LIMITS.maxFileBytes / 1024 / 1024} MB.` };
    }
    compressed += entry.compressedSize;
    if (entry.size >= IMPORT_LIMITS.ratioFloorEntryBytes && entry.size / Math.max(1, entry.compressedSize) > IMPORT_LIMITS.maxRatio) {
      return {
        ok: false,
        code: 'PKG_INVALID_ZIP',
        message: `${entry.name} expands more than ${IMPORT_LIMITS.maxRatio} times (a zip bomb?), past the limit for one file; it was not unpacked.`,
      };
    }
  }
  if (total > IMPORT_LIMITS.maxUnpackedBytes) {
    return { ok: false, code: 'PKG_TOO_LARGE', message: `The package unpacks to more than ${IMPORT_LIMITS.maxUnpackedBytes / 1024 / 1024} MB, the limit for one import.` };
  }
  // Many entries each under the per-entry floor still add up: the whole package is held to the ratio
  // too. Entries may share their compressed bytes (an overlapping zip), so the zip's size bounds them.
  if (total >= IMPORT_LIMITS.ratioFloorPackageBytes && total / Math.max(1, Math.min(compressed, zip.byteLength)) > IMPORT_LIMITS.maxRatio) {
    return {
      ok: false,
      code: 'PKG_INVALID_ZIP',
      message: `The package expands more than ${IMPORT_LIMITS.maxRatio} times (${(total / 1024 / 1024).toFixed(1)} MB from a ${Math.ceil(zip.byteLength / 1024)} KB zip; a zip bomb?), past the limit for one import; nothing was unpacked.`,
    };
  }
  if (details.length > 0) {
    return { ok: false, code: 'PKG_INVALID_ZIP', message: 'The zip holds entries that are not safe to unpack.', details };
  }
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  const files = new Map<string, string>();
  const binaries: string[] = [];
  const boms: string[] = [];
  let produced = 0;
  for (const entry of entries) {
    // The declared sizes passed the checks above; what each entry really produces is held to them here.
    const read = readEntryBytes(zip, entry, {
      maxFileBytes: IMPORT_LIMITS.maxFileBytes,
      totalLeft: IMPORT_LIMITS.maxUnpackedBytes - produced,
    });
    if (!read.ok) return { ok: false, code: read.code, message: read.message, details: read.details };
    const bytes = read.bytes;
    produced += bytes.byteLength;
    try {
      // The decoder drops a leading BOM: the texts are read without it, and the path is kept.
      files.set(entry.name, decoder.decode(bytes));
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) boms.push(entry.name);
    } catch {
      binaries.push(entry.name);
    }
  }
  return { ok: true, files, binaries, boms };
}
