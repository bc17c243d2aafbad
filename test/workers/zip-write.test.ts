// The export's zip writer inside workerd: node:zlib's native deflate and CRC-32 under fflate's
// headers give a zip that the import's own guarded reader (sizes and CRC-32 checked) reads back.
import { describe, expect, it } from 'vitest';
import { unzipSync } from 'fflate';
import { zipEntries } from '../../worker/package-io/zip-write.ts';
import { readCentralDirectory } from '../../worker/package-io/zip-entries.ts';
import { readEntryBytes } from '../../worker/package-io/inflate-entry.ts';

describe('zipEntries', () => {
  it('writes deflated entries whose declared sizes and CRC-32 hold when read back', () => {
    const utf8 = new TextEncoder();
    const texts = new Map([
      ['bmad.json', '{"name":"x"}\n'],
      ['workflows/a/steps/s-1.md', `---\nnodeId: s-1\n---\n${'步骤 step text. '.repeat(500)}`],
      ['empty.md', ''],
    ]);
    const zip = zipEntries([...texts].map(([path, text]) => [path, utf8.encode(text)] as const));
    const directory = readCentralDirectory(zip);
    if (!directory.ok) throw new Error(directory.reason);
    expect(directory.entries.map((e) => [e.name, e.method])).toEqual([...texts.keys()].map((path) => [path, 8]));
    const decoder = new TextDecoder();
    for (const entry of directory.entries) {
      const read = readEntryBytes(zip, entry, { maxFileBytes: 1 << 20, totalLeft: 1 << 20 });
      if (!read.ok) throw new Error(read.message);
      expect(decoder.decode(read.bytes)).toBe(texts.get(entry.name));
    }
    // A second, independent reader agrees.
    expect(Object.keys(unzipSync(zip)).sort()).toEqual([...texts.keys()].sort());
    // The step text compresses: the entry is really deflated, not stored.
    const step = directory.entries.find((e) => e.name.endsWith('s-1.md'))!;
    expect(step.compressedSize).toBeLessThan(step.size / 4);
  });
});
