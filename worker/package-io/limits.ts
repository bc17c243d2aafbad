/**
 * Guards for uploaded packages. The original builder allowed a 50 MB zip unpacking to 100 MB; a
 * Worker isolate has 128 MB, and everything unpacked is held at once as JavaScript strings (then
 * derived, validated and written), so an upload near 100 MB filled the isolate (a 112 KB zip of
 * 99 entries of 1 MiB each grew workerd by ~123 MB). 24 MiB unpacked keeps a request far below
 * that and still fits real packages with room: the largest BMAD-METHOD module is a few MB, and the
 * bench imports a 10 MB package (bench/run.ts). A zip can hold no more than it unpacks to, so the
 * upload has the same limit. The entry count and compression ratio guards are ours (a zip bomb
 * hides in either); the ratio is checked per entry and for the whole package.
 */
import { MAX_PACKAGE_ZIP_BYTES } from '../../shared/api/import-limits.ts';

const MiB = 1024 * 1024;

export const IMPORT_LIMITS = {
  maxZipBytes: MAX_PACKAGE_ZIP_BYTES,
  maxUnpackedBytes: 24 * MiB,
  maxEntries: 5_000,
  /** A text file compresses ~5–10×; 200× is past any honest package. */
  maxRatio: 200,
  /** Entries, and packages, smaller than this are not held to the ratio (tiny files compress oddly). */
  ratioFloorEntryBytes: 256 * 1024,
  ratioFloorPackageBytes: 1 * MiB,
  /** One package text file (steps, graphs, agents.json); assets have their own 256 KiB limit. */
  maxFileBytes: 10 * MiB,
} as const;
