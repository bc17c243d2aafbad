import { describe, expect, it } from 'vitest';
import { loadPackageDir, PACKAGES_DIR } from '../../test/fixtures/packages.ts';
import { packageFromFiles, validatePackage } from '../bmad/index.ts';
import { asciiAssetPaths, hash8, proposeAsciiPath } from './ascii-assets.ts';
import { deriveBmadMethod } from './derive.ts';

const zhReview = () => loadPackageDir(new URL('zh-review/', PACKAGES_DIR));
const bmadMethod = (name: string) => loadPackageDir(new URL(`../../test/fixtures/bmad-method/${name}/`, import.meta.url));

describe('proposeAsciiPath', () => {
  it('keeps the ASCII folders and names the rest asset-<hash8> with its extension, the same every time', () => {
    const to = proposeAsciiPath('assets/templates/需求模板.md', new Set());
    expect(to).toBe(`assets/templates/asset-${hash8('assets/templates/需求模板.md')}.md`);
    expect(to).toMatch(/^assets\/templates\/asset-[0-9a-f]{8}\.md$/u);
    expect(proposeAsciiPath('assets/templates/需求模板.md', new Set())).toBe(to);
    expect(proposeAsciiPath('assets/模板/清单.md', new Set())).toMatch(/^assets\/asset-[0-9a-f]{8}\.md$/u);
    expect(proposeAsciiPath('assets/my notes.txt', new Set())).toMatch(/^assets\/asset-[0-9a-f]{8}\.txt$/u);
    expect(proposeAsciiPath('assets/templates/plan.md', new Set())).toBeNull();
  });

  it('never proposes a path that is already taken', () => {
    const first = proposeAsciiPath('assets/需求.md', new Set())!;
    expect(proposeAsciiPath('assets/需求.md', new Set([first]))).toBe(first.replace(/\.md$/u, '-2.md'));
  });
});

describe('asciiAssetPaths', () => {
  it('renames a Chinese-named asset of a .bmad package and rewrites the links to it, so the package validates', () => {
    const files = zhReview();
    const checklist = files.get('assets/templates/review-checklist.md')!;
    files.delete('assets/templates/review-checklist.md');
    files.set('assets/templates/评审清单.md', checklist);
    for (const [path, text] of files) files.set(path, text.replaceAll('review-checklist.md', '评审清单.md'));
    const before = packageFromFiles(files);
    expect(validatePackage(before).errors.map((e) => e.code)).toContain('ASSET_INVALID_PATH');

    const { pkg, renames, issues } = asciiAssetPaths(before);
    const to = renames[0]!.to;
    expect(renames).toEqual([{ from: 'assets/templates/评审清单.md', to }]);
    expect(issues.map((i) => [i.severity, i.code, i.filePath])).toEqual([['warning', 'ASSET_RENAMED', to]]);
    const report = validatePackage(pkg);
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
    // Nothing is lost: the content moves with its new name, and every link follows it.
    expect(pkg.assets.find((a) => a.path === to)!.content).toBe(checklist);
    const collect = pkg.workflows[0]!.steps.find((s) => s.path.endsWith('collect-requirements.md'))!.markdown;
    expect(collect).toContain(`@pkg/${to}`);
    expect(JSON.stringify(pkg)).not.toContain('评审清单.md');
    // The Chinese prose around the links is untouched.
    expect(collect).toContain('把业务方的想法整理成一份可以评审的需求文档');
  });

  it('leaves a package with ASCII asset names as it is (the same object)', () => {
    const pkg = packageFromFiles(zhReview());
    expect(asciiAssetPaths(pkg).pkg).toBe(pkg);
  });

  it('keeps a Chinese-named BMAD-METHOD data file (it used to be left out) and rewrites the step link to it', () => {
    const files = bmadMethod('linear');
    const csv = files.get('create-brief/data/sections.csv')!;
    files.delete('create-brief/data/sections.csv');
    files.set('create-brief/data/章节.csv', csv);
    const step = 'create-brief/steps/step-02-vision.md';
    files.set(step, files.get(step)!.replace('../data/sections.csv', '../data/章节.csv'));
    const derived = deriveBmadMethod(files, []);
    expect(derived.issues.map((i) => i.code)).not.toContain('BMAD_FILE_SKIPPED');
    const { pkg, renames } = asciiAssetPaths(derived.pkg);
    expect(renames.map((r) => r.from)).toEqual(['assets/create-brief/data/章节.csv']);
    const to = renames[0]!.to;
    expect(to).toMatch(/^assets\/create-brief\/data\/asset-[0-9a-f]{8}\.csv$/u);
    expect(pkg.assets.find((a) => a.path === to)!.content).toBe(csv);
    const stepText = pkg.workflows[0]!.steps.find((s) => s.path.endsWith('step-02-vision.md'))!.markdown;
    expect(stepText).toContain(`'../data/${to.split('/').at(-1)}'`);
    expect(validatePackage(pkg).errors).toEqual([]);
  });
});
