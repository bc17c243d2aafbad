import { describe, expect, it } from 'vitest';
import { HOSTILE_VARIANTS } from '../../test/fixtures/hostile.ts';
import { loadFixture } from '../../test/fixtures/packages.ts';
import { packageFromFiles, packageToFiles } from './package-files.ts';
import { validatePackage } from './pipeline.ts';

describe('hostile packages (test/fixtures/hostile.ts)', () => {
  it.each(HOSTILE_VARIANTS.map((v) => [v.name, v] as const))('%s: reports exactly the expected error codes', (_name, variant) => {
    const report = validatePackage(packageFromFiles(variant.files));
    expect([...new Set(report.errors.map((e) => e.code))].sort()).toEqual(variant.errorCodes);
    expect(report.schemaFailed).toBe(variant.schemaFailed);
    expect(report.valid).toBe(variant.errorCodes.length === 0);
  });

  it('an alias bomb is refused as an alias problem, not expanded', () => {
    const bomb = HOSTILE_VARIANTS.find((v) => v.name === 'yaml-alias-bomb')!;
    const [issue] = validatePackage(packageFromFiles(bomb.files)).errors;
    expect(issue).toMatchObject({ code: 'STEP_INVALID_FRONTMATTER', filePath: 'steps/99-finish.md' });
    expect(issue!.message).toMatch(/alias/iu);
  });

  it('script tags in Markdown are text: the package stays valid and exports them byte for byte', () => {
    const scripted = HOSTILE_VARIANTS.find((v) => v.name === 'script-in-markdown')!;
    const exported = packageToFiles(packageFromFiles(scripted.files));
    expect(exported.get('workflows/main/steps/99-finish.md')).toBe(scripted.files.get('steps/99-finish.md'));
    expect(exported.get('assets/templates/study-plan.md')).toContain('<img src=x onerror="alert(1)">');
  });

  it('every variant differs from the valid package it was made from', () => {
    const base = loadFixture('branching');
    for (const variant of HOSTILE_VARIANTS) {
      const changed = [...variant.files].filter(([path, text]) => base.get(path) !== text);
      expect(changed.length, variant.name).toBeGreaterThan(0);
    }
  });
});
