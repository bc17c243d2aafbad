// The Chinese example project `npm start` seeds: the zip the seed uploads holds exactly the test
// package's files, byte for byte, and reads as a Chinese package.
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { packageFromFiles, validatePackage } from '../shared/bmad/index.ts';
import { detectContentLanguage } from '../shared/i18n/content-language.ts';
import { loadPackageDir, PACKAGES_DIR } from '../test/fixtures/packages.ts';
import { ZH_PACKAGE_DIR, zipFolder } from './seed-demo.ts';

describe('the seeded Chinese example', () => {
  it('uploads the zh-review package as it is: every file, byte for byte, valid and detected as Chinese', async () => {
    const files = new Map(Object.entries(unzipSync(await zipFolder(ZH_PACKAGE_DIR))).map(([path, bytes]) => [path, strFromU8(bytes)]));
    expect(files).toEqual(loadPackageDir(new URL('zh-review/', PACKAGES_DIR)));
    const pkg = packageFromFiles(files);
    expect(validatePackage(pkg).valid).toBe(true);
    expect(detectContentLanguage(pkg)).toBe('zh');
  });
});
