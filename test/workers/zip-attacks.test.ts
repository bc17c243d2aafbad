// Hand-built hostile zips through the real import route: lies about sizes and CRC-32, cut
// streams, bombs, and every safety branch of the zip guard, each refused with its PKG_* code
// and without a row written.
import { env, exports } from 'cloudflare:workers';
import { deflateSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ORIGIN, signedInClient, type TestClient } from './client.ts';
import { buildZip, crc32, deflated, packageEntries, stored, type EndRecord, type RawEntry } from './zip-builder.ts';
import { readCentralDirectory } from '../../worker/package-io/zip-entries.ts';
import { readEntryBytes } from '../../worker/package-io/inflate-entry.ts';
import { unpackFiles } from '../../worker/package-io/unpack.ts';
import { guardLogs } from './log-canary.ts';

// Nothing this file's faults make the Worker or the session object log may carry a key, an email or a hash.
guardLogs();

const MiB = 1024 * 1024;
const TABLES = ['projects', 'project_members', 'workflows', 'workflow_steps', 'assets'];

async function counts() {
  return Promise.all(TABLES.map(async (t) => (await env.DB.prepare(`SELECT count(*) AS n FROM ${t}`).first<{ n: number }>())!.n));
}

async function upload(client: TestClient, zip: Uint8Array) {
  const form = new FormData();
  form.set('file', new File([new Uint8Array(zip)], 'package.bmad', { type: 'application/zip' }));
  const res = await exports.default.fetch(`${ORIGIN}/api/projects/import`, {
    method: 'POST',
    headers: { origin: ORIGIN, cookie: client.cookie! },
    body: form,
  });
  return { status: res.status, ...((await res.json()) as { data: any; error: any }) };
}

/** The branching test package plus `extra` entries, built by hand. */
function withExtra(extra: RawEntry[], end?: EndRecord): Uint8Array {
  return buildZip([...packageEntries(env.TEST_PACKAGES.branching), ...extra], end);
}

/** Uploads and expects a refusal with `code`, and not one row more in any package table. */
async function expectRefused(zip: Uint8Array, code: string) {
  const user = await signedInClient('Attacker');
  const before = await counts();
  const res = await upload(user, zip);
  expect(res.error?.code, JSON.stringify(res.error)).toBe(code);
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(await counts()).toEqual(before);
  return res.error as { code: string; message: string; details?: Array<{ path?: string; message: string; hint?: string }> };
}

const zeros64 = new Uint8Array(64 * MiB);
const notes = '# Notes\n\nKeep receipts for every expense over fifty euros.\n';

describe('hand-built zips', () => {
  it('imports an honest hand-built zip with deflated and stored entries (the builder itself is sound)', async () => {
    const user = await signedInClient('Honest');
    const res = await upload(user, withExtra([stored('assets/notes.md', notes), deflated('assets/more.md', notes.repeat(50))]));
    expect(res.status, JSON.stringify(res.error)).toBe(201);
  });
});

describe('sizes actually produced', () => {
  it('refuses an entry that declares 1 KiB but inflates to 64 MiB, stopping near the declared size', async () => {
    const bomb = deflated('assets/notes.md', zeros64, { size: 1024, crc: crc32(zeros64.subarray(0, 1024)) });
    const zip = withExtra([bomb]);
    const error = await expectRefused(zip, 'PKG_ENTRY_SIZE_MISMATCH');
    expect(error.details).toEqual([expect.objectContaining({ path: 'assets/notes.md' })]);
    // Straight at the inflater: it gave up after a few MiB, not after producing 64.
    const directory = readCentralDirectory(zip);
    expect(directory.ok).toBe(true);
    const entry = directory.ok ? directory.entries.find((e) => e.name === 'assets/notes.md')! : undefined;
    const result = readEntryBytes(zip, entry!, { maxFileBytes: 10 * MiB, totalLeft: 100 * MiB });
    expect(result).toMatchObject({ ok: false, code: 'PKG_ENTRY_SIZE_MISMATCH' });
    expect(result.ok ? 0 : result.produced).toBeGreaterThan(1024);
    expect(result.ok ? Infinity : result.produced).toBeLessThan(8 * MiB);
  });

  it('refuses an entry that declares more bytes than its complete stream produces', async () => {
    await expectRefused(withExtra([deflated('assets/notes.md', notes, { size: notes.length + 100 })]), 'PKG_ENTRY_SIZE_MISMATCH');
  });

  it('refuses a stored entry whose declared size differs from its bytes, both ways', async () => {
    await expectRefused(withExtra([stored('assets/notes.md', notes, { size: notes.length - 5 })]), 'PKG_ENTRY_SIZE_MISMATCH');
    await expectRefused(withExtra([stored('assets/notes.md', notes, { size: notes.length + 5 })]), 'PKG_ENTRY_SIZE_MISMATCH');
  });

  it('refuses many entries whose true total is past the unpacked limit, at the first that outgrows its declared size', async () => {
    const nine = new Uint8Array(9 * MiB);
    const data = deflateSync(nine);
    const bombs = Array.from({ length: 12 }, (_, i): RawEntry => ({ name: `assets/z${i}.md`, data, method: 8, size: 1024, crc: crc32(nine.subarray(0, 1024)) }));
    const error = await expectRefused(withExtra(bombs), 'PKG_ENTRY_SIZE_MISMATCH');
    expect(error.details).toEqual([expect.objectContaining({ path: 'assets/z0.md' })]);
  });

  it('refuses a package whose declared sizes add up past the unpacked limit (24 MiB, well below the isolate\'s 128 MB) before inflating anything', async () => {
    // Each declares 9.5 MiB from 64 KiB (a believable ratio), 3 of them: 28.5 MiB in all.
    const big = Array.from({ length: 3 }, (_, i) => stored(`assets/b${i}.md`, 'x', { size: 9.5 * MiB, compressedSize: 64 * 1024 }));
    const error = await expectRefused(withExtra(big), 'PKG_TOO_LARGE');
    expect(error.message).toContain('unpacks to more than 24 MB, the limit for one import');
  });

  it('refuses many entries of exactly 1 MiB that each compress ~1000× (the shape that grew workerd by ~123 MB), nothing inflated', async () => {
    const mib = new Uint8Array(MiB).fill(0x20);
    const data = deflateSync(mib);
    const crc = crc32(mib);
    const bombs = Array.from({ length: 20 }, (_, i): RawEntry => ({ name: `assets/s${i}.md`, data, method: 8, size: MiB, crc }));
    const error = await expectRefused(withExtra(bombs), 'PKG_INVALID_ZIP');
    expect(error.message).toMatch(/expands more than 200 times .*past the limit/u);
  });

  it('holds the whole package to the ratio: 100 entries of 200 KiB, each under the per-entry floor, refused before inflating', async () => {
    const small = new Uint8Array(200 * 1024).fill(0x20);
    const data = deflateSync(small);
    const crc = crc32(small);
    const bombs = Array.from({ length: 100 }, (_, i): RawEntry => ({ name: `assets/t${i}.md`, data, method: 8, size: small.length, crc }));
    const error = await expectRefused(withExtra(bombs), 'PKG_INVALID_ZIP');
    expect(error.message).toMatch(/^The package expands more than 200 times .*past the limit for one import/u);
  });

  it('refuses one entry of 256 KiB–1 MiB that compresses past 200×', () => {
    const half = new Uint8Array(512 * 1024).fill(0x20);
    const result = unpackFiles(buildZip([deflated('assets/half.md', half)]));
    expect(result).toMatchObject({ ok: false, code: 'PKG_INVALID_ZIP', message: expect.stringContaining('assets/half.md expands more than 200 times') });
  });

  it('unpacks an honest ~12 MB package (text compressing a few times), larger than the bench\'s 10 MB one', () => {
    const words = ['step', 'goal', 'review', 'the', 'draft', 'with', 'user', 'and', 'write', 'notes', 'menu', 'continue', 'template', 'section'];
    let seed = 7;
    const text = (bytes: number) => {
      const out: string[] = [];
      let n = 0;
      while (n < bytes) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        const word = words[seed % words.length]!;
        out.push(word);
        n += word.length + 1;
      }
      return out.join(' ');
    };
    const entries = Array.from({ length: 8 }, (_, i) => deflated(`workflows/w${i}/steps/big.md`, text(1.5 * MiB)));
    const result = unpackFiles(buildZip(entries));
    expect(result.ok, result.ok ? '' : result.message).toBe(true);
  });

  it('stops at the space the package has left in total, whatever the entry declares', () => {
    const text = notes.repeat(100);
    const zip = buildZip([deflated('assets/notes.md', text)]);
    const directory = readCentralDirectory(zip);
    if (!directory.ok) throw new Error(directory.reason);
    const entry = directory.entries[0]!;
    expect(readEntryBytes(zip, entry, { maxFileBytes: 10 * MiB, totalLeft: text.length - 1 })).toMatchObject({ ok: false, code: 'PKG_TOO_LARGE' });
    expect(readEntryBytes(zip, entry, { maxFileBytes: text.length - 1, totalLeft: 100 * MiB })).toMatchObject({ ok: false, code: 'PKG_TOO_LARGE' });
    expect(readEntryBytes(zip, entry, { maxFileBytes: text.length, totalLeft: text.length })).toMatchObject({ ok: true });
  });
});

describe('the inflater at its edges', () => {
  const only = (entry: RawEntry) => {
    const zip = buildZip([entry]);
    const directory = readCentralDirectory(zip);
    if (!directory.ok) throw new Error(directory.reason);
    return (budget: { maxFileBytes: number; totalLeft: number }) => readEntryBytes(zip, directory.entries[0]!, budget);
  };

  it('reads an empty deflated entry as zero bytes, and refuses one byte when the package has none left', () => {
    const text = (result: ReturnType<ReturnType<typeof only>>) => (result.ok ? new TextDecoder().decode(result.bytes) : result.code);
    expect(text(only(deflated('assets/empty.md', ''))({ maxFileBytes: 10 * MiB, totalLeft: 0 }))).toBe('');
    const one = only(deflated('assets/one.md', 'x'));
    expect(text(one({ maxFileBytes: 10 * MiB, totalLeft: 0 }))).toBe('PKG_TOO_LARGE');
    expect(text(one({ maxFileBytes: 10 * MiB, totalLeft: 1 }))).toBe('x');
  });

  // workerd's inflate checks its cap against the buffer it allocated (chunks of up to 64 KiB), not
  // the bytes produced: a cap of the declared size alone refused honest files from ~40 KB on.
  it('reads honest entries of every size, past the inflater\'s chunk size, exactly to their declared length', () => {
    let seed = 7;
    const word = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return ['vendor', 'intake', 'review', 'policy', '审核', 'step', 'next', 'goal', '清单', 'ok'][seed % 10]!;
    };
    const sizes = [1, 16 * 1024, 40 * 1024, 41 * 1024, 64 * 1024, 65 * 1024, 230 * 1024, 1024 * 1024, 3 * MiB];
    // And sizes in between, where the allocated buffer and the output differ most.
    for (let n = 0; n < 24; n++) sizes.push(1000 + ((n * 7919 * 104_729) % (2 * MiB)));
    for (const size of sizes) {
      let text = '';
      while (text.length < size) text += `${word()} `;
      const bytes = new TextEncoder().encode(text.slice(0, size));
      const read = only(deflated('steps/big.md', bytes));
      for (const budget of [{ maxFileBytes: 10 * MiB, totalLeft: 100 * MiB }, { maxFileBytes: bytes.length, totalLeft: bytes.length }]) {
        const result = read(budget);
        expect(result.ok, `${bytes.length} bytes: ${result.ok ? '' : result.message}`).toBe(true);
        if (result.ok) expect(new Uint8Array(result.bytes)).toEqual(bytes);
      }
      // One byte less of room is still "too large", not a lie about the size.
      expect(read({ maxFileBytes: bytes.length - 1, totalLeft: 100 * MiB })).toMatchObject({ ok: false, code: 'PKG_TOO_LARGE' });
    }
  });

  it('tells damaged compressed data from a cut stream', () => {
    const entry = deflated('assets/notes.md', notes.repeat(20));
    // Block type 3 does not exist in DEFLATE.
    const damaged = entry.data.slice();
    damaged[0] = damaged[0]! | 0b110;
    expect(only({ ...entry, data: damaged })({ maxFileBytes: 10 * MiB, totalLeft: 100 * MiB })).toMatchObject({ ok: false, code: 'PKG_INVALID_ZIP' });
    expect(only({ ...entry, data: entry.data.subarray(0, 10) })({ maxFileBytes: 10 * MiB, totalLeft: 100 * MiB })).toMatchObject({
      ok: false,
      code: 'PKG_ENTRY_TRUNCATED',
    });
  });
});

describe('CRC-32 and truncation', () => {
  it('refuses a deflated entry whose CRC-32 is wrong', async () => {
    const entry = deflated('assets/notes.md', notes);
    await expectRefused(withExtra([{ ...entry, crc: (entry.crc ^ 1) >>> 0 }]), 'PKG_CRC_MISMATCH');
  });

  it('refuses a stored entry whose CRC-32 is wrong', async () => {
    const entry = stored('assets/notes.md', notes);
    await expectRefused(withExtra([{ ...entry, crc: (entry.crc + 7) >>> 0 }]), 'PKG_CRC_MISMATCH');
  });

  it('refuses a deflate stream cut before its final block, even when the declared size and CRC are the original ones', async () => {
    // Incompressible-ish text so the stream has substance to cut.
    const text = Array.from({ length: 4000 }, (_, i) => `line ${i} ${(i * 2654435761) % 1000003}`).join('\n');
    const entry = deflated('assets/notes.md', text);
    const cut = entry.data.subarray(0, Math.floor(entry.data.length / 2));
    const error = await expectRefused(withExtra([{ ...entry, data: cut }]), 'PKG_ENTRY_TRUNCATED');
    expect(error.details).toEqual([expect.objectContaining({ path: 'assets/notes.md' })]);
  });

  it('refuses an entry whose compressed bytes run past the end of the file', async () => {
    const entry = deflated('assets/notes.md', notes);
    // Put it last in the file and declare more compressed bytes than the whole zip holds.
    const zip = buildZip([...packageEntries(env.TEST_PACKAGES.branching), { ...entry, compressedSize: 1 << 30 }]);
    await expectRefused(zip, 'PKG_ENTRY_TRUNCATED');
  });
});

describe('zip safety branches', () => {
  it('refuses a symbolic link', async () => {
    const error = await expectRefused(withExtra([stored('assets/link.md', '../../etc/passwd', { unixMode: 0o120777 })]), 'PKG_INVALID_ZIP');
    expect(error.details).toEqual([{ path: 'assets/link.md', message: expect.stringContaining('symbolic link') }]);
  });

  it('refuses an encrypted entry', async () => {
    const error = await expectRefused(withExtra([stored('assets/secret.md', 'xxxxxxxxxxxx', { flags: 1 })]), 'PKG_INVALID_ZIP');
    expect(error.details).toEqual([{ path: 'assets/secret.md', message: expect.stringContaining('encrypted') }]);
  });

  it('refuses a name that appears twice', async () => {
    const error = await expectRefused(withExtra([stored('assets/twice.md', 'one'), deflated('assets/twice.md', 'two')]), 'PKG_INVALID_ZIP');
    expect(error.details).toEqual([{ path: 'assets/twice.md', message: expect.stringContaining('appears twice') }]);
  });

  it('refuses ZIP64 however it is marked: entry count, entry sizes, or the ZIP64 locator', async () => {
    const markedByCount = withExtra([stored('assets/a.md', notes)], { count: 0xffff });
    expect((await expectRefused(markedByCount, 'PKG_INVALID_ZIP')).message).toContain('ZIP64');
    const markedBySize = withExtra([stored('assets/a.md', notes, { size: 0xffffffff, compressedSize: 0xffffffff })]);
    expect((await expectRefused(markedBySize, 'PKG_INVALID_ZIP')).message).toContain('ZIP64');
    const markedByLocator = withExtra([stored('assets/a.md', notes)], { zip64Locator: true });
    expect((await expectRefused(markedByLocator, 'PKG_INVALID_ZIP')).message).toContain('ZIP64');
  });
});

describe('asset paths the file systems and the asset API cannot hold', () => {
  it('refuses assets/A.md beside assets/a.md, in a .bmad and in a BMAD-METHOD folder', async () => {
    const bmad = await expectRefused(withExtra([deflated('assets/A.md', notes), deflated('assets/a.md', notes)]), 'PKG_VALIDATION_FAILED');
    expect(bmad.details).toContainEqual(expect.objectContaining({ code: 'ASSET_INVALID_PATH', message: expect.stringContaining('only in letter case') }));
    const folder = buildZip([deflated('wf/workflow.md', '---\nname: wf\n---\n\nLoad `./steps/step-01.md`\n'), deflated('wf/steps/step-01.md', '# One\n'), deflated('wf/A.md', notes), deflated('wf/a.md', notes)]);
    const bmadMethod = await expectRefused(folder, 'PKG_VALIDATION_FAILED');
    expect(bmadMethod.details).toContainEqual(expect.objectContaining({ code: 'ASSET_INVALID_PATH', message: expect.stringContaining('only in letter case') }));
  });

  it('refuses an asset path past 300 characters (the asset API could neither read nor delete it), naming the limit', async () => {
    const long = `assets/${'x'.repeat(5000)}.md`;
    const error = await expectRefused(withExtra([deflated(long, notes)]), 'PKG_VALIDATION_FAILED');
    expect(error.details).toContainEqual(expect.objectContaining({ code: 'ASSET_INVALID_PATH', path: long, message: 'The asset path is 5010 characters long; the limit is 300.' }));
    // Exactly 300 is still one the API takes.
    const user = await signedInClient('Longpath');
    const fits = `assets/${'x'.repeat(300 - 'assets/'.length - 3)}.md`;
    expect((await upload(user, withExtra([deflated(fits, notes)]))).status).toBe(201);
  });
});
