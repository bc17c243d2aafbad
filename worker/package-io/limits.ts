/**
 * Guards for uploaded packages. The original builder allowed a 50 MB zip unpacking to 100 MB;
 * the entry count and compression ratio guards are ours (a zip bomb hides in either).
 */
export const IMPORT_LIMITS = {
  maxZipBytes: 50 * 1024 * 1024,
  maxUnpackedBytes: 100 * 1024 * 1024,
  maxEntries: 5_000,
  /** A text file compresses ~5–10×; 200× is past any honest package. */
  maxRatio: 200,
  /** One package text file (steps, graphs, agents.json); assets have their own 256 KiB limit. */
  maxFileBytes: 10 * 1024 * 1024,
} as const;
