/**
 * The import row's second peer: what import checks, done plainly. fflate's unzip with each entry's
 * size held to what its header declares, a native CRC-32 of every entry (the work of the CRC check:
 * fflate's sync unzip does not hand out the declared CRC to compare with), a strict UTF-8 decode,
 * then parse and schema of every file as the validate row's ajv peer does. No BMAD rules, no
 * references, no issue locations. Raw unzip alone is no floor for an import that must parse
 * 2,500 YAML frontmatters; this is the plain version of the same job.
 */
import { crc32 } from 'node:zlib';
import { unzipSync } from 'fflate';
import { schemaJobs, schemaOnlyValidate } from './peers.ts';

type Validators = Parameters<typeof schemaOnlyValidate>[1];

/** Unzip, size and CRC-32 work, strict decode, JSON/YAML parse and the published schemas. Throws on a refused file. */
export function plainCheckedImport(zip: Uint8Array, validators: Validators): { files: Map<string, string>; crcSum: number } {
  const declared = new Map<string, number>();
  const entries = unzipSync(zip, {
    filter: (file) => {
      declared.set(file.name, file.originalSize);
      return true;
    },
  });
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const files = new Map<string, string>();
  let sum = 0;
  for (const [path, bytes] of Object.entries(entries)) {
    if (bytes.byteLength !== declared.get(path)) throw new Error(`${path}: size differs from the declared one`);
    sum = (sum + crc32(bytes)) >>> 0;
    files.set(path, decoder.decode(bytes));
  }
  const failed = schemaOnlyValidate(schemaJobs(files), validators);
  if (failed.length > 0) throw new Error(`${failed[0]} fails its schema`);
  // Returned so the checksums are never dead code.
  return { files, crcSum: sum };
}
