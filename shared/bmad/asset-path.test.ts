import { describe, expect, it } from 'vitest';
import { checkAssetPath, checkAssetQuota, checkAssetSize, checkAssetUpsert, formatBytes } from './asset-path.ts';

describe('checkAssetPath', () => {
  it.each(['assets/a.md', 'assets/templates/plan-template.md', 'assets/data/t.yaml', 'assets/x.yml', 'assets/a.b_c-d.json', 'assets/n.txt', 'assets/data/sections.csv', 'assets/a.MD', 'assets/data/Brain-Methods.CSV', 'assets/c.Json'])(
    'accepts %s',
    (path) => expect(checkAssetPath(path)).toEqual({ ok: true, path }),
  );

  it.each([
    ['', 'empty'],
    ['assets/a\0.md', 'NUL'],
    ['assets\\a.md', 'backslash'],
    ['/assets/a.md', 'absolute'],
    ['C:/assets/a.md', 'absolute'],
    ['c:assets/a.md', 'absolute'],
    ['assets/a b.md', 'a space'],
    ['assets/ä.md', '"ä"'],
    ['assets/a?.md', '"?"'],
    ['assets/../bmad.json', '".."'],
    ['assets/./a.md', '"."'],
    ['assets//a.md', 'empty folder'],
    ['assets/dir/', 'empty folder'],
    ['steps/a.md', 'under the assets/ folder'],
    ['assets', 'under the assets/ folder'],
    ['assets/a.exe', '".exe"'],
    ['assets/a.EXE', '".EXE"'],
    ['assets/README', 'no extension'],
    ['assets/.md', 'no extension'],
  ])('rejects %j (%s)', (path, why) => {
    const result = checkAssetPath(path);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe('ASSET_INVALID_PATH');
    expect(result.message).toContain(why);
    expect(result.hint.length).toBeGreaterThan(0);
  });
});

describe('asset sizes and quota', () => {
  it('allows 256 KiB per file, counted in UTF-8 bytes', () => {
    expect(checkAssetSize('assets/a.md', 'a'.repeat(256 * 1024)).ok).toBe(true);
    expect(checkAssetSize('assets/a.md', 'a'.repeat(256 * 1024 + 1))).toMatchObject({ ok: false, code: 'ASSET_TOO_LARGE' });
    expect(checkAssetSize('assets/a.md', '中'.repeat(90 * 1024))).toMatchObject({ ok: false, code: 'ASSET_TOO_LARGE' });
  });

  it('allows 200 files and 2 MiB per project', () => {
    expect(checkAssetQuota(200, 2 * 1024 * 1024)).toEqual({ ok: true });
    expect(checkAssetQuota(201, 10)).toMatchObject({ ok: false, code: 'ASSET_LIMIT_REACHED' });
    expect(checkAssetQuota(1, 2 * 1024 * 1024 + 1)).toMatchObject({ ok: false, code: 'ASSET_LIMIT_REACHED' });
  });

  it('checks an upsert against the project, replacing a file at the same path', () => {
    const current = Array.from({ length: 200 }, (_, i) => ({ path: `assets/f${i}.md`, bytes: 10 }));
    expect(checkAssetUpsert('assets/f0.md', 'new', current)).toEqual({ ok: true, path: 'assets/f0.md' });
    expect(checkAssetUpsert('assets/new.md', 'new', current)).toMatchObject({ ok: false, code: 'ASSET_LIMIT_REACHED' });
    expect(checkAssetUpsert('assets/x.exe', 'new', [])).toMatchObject({ ok: false, code: 'ASSET_INVALID_PATH' });
  });

  it('refuses an upsert that would collide with another asset once unpacked', () => {
    const current = [{ path: 'assets/Plan.md', bytes: 3 }, { path: 'assets/notes.md', bytes: 3 }, { path: 'assets/guide.md/intro.md', bytes: 3 }];
    expect(checkAssetUpsert('assets/plan.md', 'x', current)).toMatchObject({ ok: false, code: 'ASSET_INVALID_PATH', message: expect.stringContaining('only in letter case') });
    expect(checkAssetUpsert('assets/notes.md/more.md', 'x', current)).toMatchObject({ ok: false, code: 'ASSET_INVALID_PATH', message: expect.stringContaining('cannot share a name') });
    expect(checkAssetUpsert('assets/Guide.md', 'x', current)).toMatchObject({ ok: false, code: 'ASSET_INVALID_PATH', message: 'assets/guide.md/intro.md would be inside assets/Guide.md, which is a file: a file and a folder cannot share a name.' });
    expect(checkAssetUpsert('assets/guide/intro.md', 'x', current)).toEqual({ ok: true, path: 'assets/guide/intro.md' });
    expect(checkAssetUpsert('assets/Plan.md', 'x', current)).toEqual({ ok: true, path: 'assets/Plan.md' });
  });

  it('formats sizes for messages', () => {
    expect(formatBytes(256 * 1024)).toBe('256 KiB');
    expect(formatBytes(2 * 1024 * 1024)).toBe('2 MiB');
    expect(formatBytes(12)).toBe('12 bytes');
  });
});
