/**
 * The CPU part of our import and export endpoints, as bench/run.ts times it. Import is
 * worker/package-io/import.ts without its D1 reads and writes (and without hashing the assets for
 * their rows); export is worker/package-io/export.ts after loadStoredPackage (a D1 read), so the
 * package it starts from is built once, outside the timing.
 */
import { strToU8, zipSync } from 'fflate';
import { unpackPackage } from '../worker/package-io/unpack.ts';
import { packageFromFiles, packageToFiles, toMultiWorkflowLayout, validatePackage } from '../shared/bmad/index.ts';
import type { BmadPackage } from '../shared/bmad/index.ts';

/** Guarded unzip + strict UTF-8 decode, package model, the validation pipeline, the stored layout. */
export function importCpu(zip: Uint8Array): BmadPackage {
  const unpacked = unpackPackage(zip);
  if (!unpacked.ok) throw new Error(`unpackPackage refused the bench package: ${unpacked.code} ${unpacked.message}`);
  const original = packageFromFiles(unpacked.files);
  const report = validatePackage(original);
  if (!report.valid) throw new Error(`The bench package failed validation on import: ${report.errors[0]?.message ?? ''}`);
  return toMultiWorkflowLayout(original);
}

/** Validation, the multi-workflow file map, UTF-8 encoding and a level-6 zip, as export.ts does. */
export function exportCpu(pkg: BmadPackage): Uint8Array {
  const report = validatePackage(pkg);
  if (!report.valid) throw new Error(`The bench package failed validation on export: ${report.errors[0]?.message ?? ''}`);
  const entries: Record<string, Uint8Array> = {};
  for (const [path, text] of packageToFiles(pkg)) entries[path] = strToU8(text);
  return zipSync(entries, { level: 6 });
}
