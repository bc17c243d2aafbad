/**
 * The CPU part of our import and export endpoints, as bench/run.ts times it. Import is
 * worker/package-io/import.ts without its D1 reads and writes (and without hashing the assets for
 * their rows): `prepareImport`, the very function the endpoint calls (it once timed a hand-picked
 * subset of it, which left out the layout sniffing, the content-language detection and the
 * preview); export is worker/package-io/export.ts after loadStoredPackage (a D1 read), so the
 * package it starts from is built once, outside the timing.
 */
import { prepareImport } from '../worker/package-io/prepare-import.ts';
import { zipEntries } from '../worker/package-io/zip-write.ts';
import { packageToFiles, validatePackage } from '../shared/bmad/index.ts';
import type { BmadPackage } from '../shared/bmad/index.ts';

/** What the import endpoint computes before it writes: guarded unzip, layout, validation, preview, stored layout. */
export function importCpu(zip: Uint8Array): BmadPackage {
  const prepared = prepareImport(zip);
  if (!prepared.preview.valid) throw new Error(`The bench package failed validation on import: ${prepared.errors[0]?.message ?? ''}`);
  return prepared.pkg;
}

/** Validation, the multi-workflow file map, UTF-8 encoding and a level-6 zip, as export.ts does. */
export function exportCpu(pkg: BmadPackage): Uint8Array {
  const report = validatePackage(pkg);
  if (!report.valid) throw new Error(`The bench package failed validation on export: ${report.errors[0]?.message ?? ''}`);
  const utf8 = new TextEncoder();
  const entries = new Map<string, Uint8Array>();
  for (const [path, text] of packageToFiles(pkg)) entries.set(path, utf8.encode(text));
  return zipEntries(entries);
}
