import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../test/fixtures/packages.ts';
import { PROJECT_FILE_PATH, projectFileText, takeManifestOrigin, takeProjectFile } from './project-file.ts';
import { packageFromFiles } from './package-files.ts';
import { validatePackage } from './pipeline.ts';
import { validateManifest } from './validate-file.ts';

const EMPTY = { industryDomain: '', targetUsers: '', painPoints: '', expectedOutcomes: '', qualityStyle: '' };
const PROFILE = { ...EMPTY, industryDomain: '客户服务', targetUsers: 'Support leads' };
const ORIGIN = {
  layout: 'bmad-method' as const,
  workflows: [{ id: 'review', dir: '', file: 'workflow.md', renamed: { 'steps/step-1a2b3c4d.md': 'steps/步骤-01.md' } }],
  assets: { 'assets/data/asset-0f0f0f0f.csv': 'data/清单.csv' },
};

describe('the project file', () => {
  it('is written only when it says something bmad.json does not', () => {
    expect(projectFileText({ name: 'support-desk', domainProfile: EMPTY }, { name: 'support-desk' })).toBeNull();
    expect(projectFileText({ name: '客服工作台', domainProfile: EMPTY }, { name: 'package' })).not.toBeNull();
    expect(projectFileText({ name: 'support-desk', domainProfile: PROFILE }, { name: 'support-desk' })).not.toBeNull();
  });

  it('reads back the name and domain profile it was written with, in CRLF too, and leaves no asset behind', () => {
    for (const eol of ['\n', '\r\n'] as const) {
      const text = projectFileText({ name: '客服工作台 (2)', domainProfile: PROFILE }, { name: 'support-desk' }, eol)!;
      expect(text.includes('\r\n')).toBe(eol === '\r\n');
      const files = new Map([...loadFixture('two-workflows'), [PROJECT_FILE_PATH, text]]);
      expect(takeProjectFile(files)).toEqual({ name: '客服工作台 (2)', domainProfile: PROFILE });
      expect(files.has(PROJECT_FILE_PATH)).toBe(false);
    }
  });

  it('is a valid package asset: a package holding it validates as cleanly as one without it', () => {
    const files = loadFixture('two-workflows');
    const withFile = new Map([...files, [PROJECT_FILE_PATH, projectFileText({ name: '客服工作台', domainProfile: PROFILE }, { name: 'support-desk' })!]]);
    const pkg = packageFromFiles(withFile);
    expect(pkg.assets.map((a) => a.path)).toContain(PROJECT_FILE_PATH);
    expect(validatePackage(pkg).issues).toEqual(validatePackage(packageFromFiles(files)).issues);
  });

  it("leaves a file at that path that is not ours as the author's asset", () => {
    for (const text of ['{"format": "something-else", "name": "x"}', 'not json', '["crewagent-project"]']) {
      const files = new Map([[PROJECT_FILE_PATH, text]]);
      expect(takeProjectFile(files)).toBeNull();
      expect(files.get(PROJECT_FILE_PATH)).toBe(text);
    }
    expect(takeProjectFile(new Map())).toBeNull();
  });

  it('takes each field only when it is valid: an invalid one falls back to an import without the file, with a warning naming it', () => {
    const ignoredFields = (info: ReturnType<typeof takeProjectFile>) => (info?.warnings ?? []).map((w) => [w.severity, w.code, w.filePath, w.params?.field]);
    const files = new Map([[PROJECT_FILE_PATH, JSON.stringify({ format: 'crewagent-project', name: '   ', domainProfile: { industryDomain: 3 } })]]);
    const read = takeProjectFile(files);
    expect(read).toEqual({ warnings: expect.any(Array) });
    expect(ignoredFields(read)).toEqual([
      ['warning', 'PROJECT_FILE_VALUE_IGNORED', PROJECT_FILE_PATH, 'name'],
      ['warning', 'PROJECT_FILE_VALUE_IGNORED', PROJECT_FILE_PATH, 'domainProfile'],
    ]);
    expect(files.size).toBe(0);
    const long = new Map([[PROJECT_FILE_PATH, JSON.stringify({ format: 'crewagent-project', name: 'x'.repeat(101), domainProfile: { unknown: 'field' } })]]);
    expect(ignoredFields(takeProjectFile(long))).toEqual([
      ['warning', 'PROJECT_FILE_VALUE_IGNORED', PROJECT_FILE_PATH, 'name'],
      ['warning', 'PROJECT_FILE_VALUE_IGNORED', PROJECT_FILE_PATH, 'domainProfile'],
    ]);
    const settings = new Map([[PROJECT_FILE_PATH, JSON.stringify({ format: 'crewagent-project', contentLanguage: 'fr', settings: { requiredApprovals: 42, autoMerge: true } })]]);
    const partly = takeProjectFile(settings)!;
    expect(partly.contentLanguage).toBeUndefined();
    expect(partly.settings).toBeUndefined();
    expect(ignoredFields(partly)).toEqual([
      ['warning', 'PROJECT_FILE_VALUE_IGNORED', PROJECT_FILE_PATH, 'contentLanguage'],
      ['warning', 'PROJECT_FILE_VALUE_IGNORED', PROJECT_FILE_PATH, 'settings.requiredApprovals'],
      ['warning', 'PROJECT_FILE_VALUE_IGNORED', PROJECT_FILE_PATH, 'settings.autoMerge'],
    ]);
    expect(partly.warnings![1]!.message).toContain('settings.requiredApprovals in assets/crewagent-project.json is not valid');
    expect(takeProjectFile(new Map([[PROJECT_FILE_PATH, JSON.stringify({ format: 'crewagent-project', settings: [1] })]]))!.warnings!.map((w) => w.params?.field)).toEqual(['settings']);
  });

  it('carries a content language the package would not be detected as, and settings other than the defaults, and reads them back', () => {
    const settings = { requiredApprovals: 2 };
    // Said by the package already: no file.
    expect(projectFileText({ name: 'x', domainProfile: EMPTY, contentLanguage: 'zh', settings: { requiredApprovals: 0 } }, { name: 'x', contentLanguage: 'zh' })).toBeNull();
    const language = projectFileText({ name: 'x', domainProfile: EMPTY, contentLanguage: 'zh' }, { name: 'x', contentLanguage: 'en' })!;
    expect(takeProjectFile(new Map([[PROJECT_FILE_PATH, language]]))).toEqual({ name: 'x', contentLanguage: 'zh' });
    const both = projectFileText({ name: 'x', domainProfile: EMPTY, contentLanguage: 'en', settings }, { name: 'x', contentLanguage: 'en' })!;
    expect(JSON.parse(both)).toEqual({ format: 'crewagent-project', formatVersion: 1, name: 'x', settings });
    expect(takeProjectFile(new Map([[PROJECT_FILE_PATH, both]]))).toEqual({ name: 'x', settings });
  });

  it('carries the origin record of a BMAD-METHOD import and reads it back; one the model refuses is not written', () => {
    const text = projectFileText({ name: 'support-desk', domainProfile: EMPTY, bmadMethod: ORIGIN }, { name: 'support-desk' })!;
    expect(text).not.toBeNull();
    expect(takeProjectFile(new Map([[PROJECT_FILE_PATH, text]]))).toEqual({ name: 'support-desk', bmadMethod: { ok: true, record: ORIGIN } });
    // A record stored before its path rules (a folder with a colon) guides the BMAD-METHOD export only.
    const older = { layout: 'bmad-method', workflows: [{ id: 'a', dir: 'c:/', file: 'workflow.md' }] };
    expect(projectFileText({ name: 'support-desk', domainProfile: EMPTY, bmadMethod: older }, { name: 'support-desk' })).toBeNull();
    expect(projectFileText({ name: 'support-desk', domainProfile: EMPTY, bmadMethod: null }, { name: 'support-desk' })).toBeNull();
  });

  it('reads an origin record that would write outside the zip as issues pointing into the file, never as a record', () => {
    const forged = { ...ORIGIN, workflows: [{ id: 'review', dir: '../../', file: 'workflow.md' }] };
    const files = new Map([[PROJECT_FILE_PATH, JSON.stringify({ format: 'crewagent-project', name: 'x', bmadMethod: forged })]]);
    const read = takeProjectFile(files)!.bmadMethod!;
    expect(read.ok).toBe(false);
    expect(read.ok ? [] : read.issues).toContainEqual(expect.objectContaining({ severity: 'error', filePath: PROJECT_FILE_PATH, pointer: '/bmadMethod/workflows/0/dir' }));
  });
});

describe('the origin record in bmad.json (.bmad packages exported before it moved to the project file)', () => {
  it('is taken out of bmad.json, in its own line ending, leaving a manifest the closed v1.1 top level accepts', () => {
    for (const eol of ['\n', '\r\n'] as const) {
      const files = loadFixture('two-workflows');
      const manifest = JSON.parse(files.get('bmad.json')!);
      const before = `${JSON.stringify({ ...manifest, bmadMethod: ORIGIN }, null, 2)}\n`.replaceAll('\n', eol);
      expect(validateManifest(before).valid).toBe(false);
      files.set('bmad.json', before);
      expect(takeManifestOrigin(files)).toEqual({ ok: true, record: ORIGIN });
      const after = files.get('bmad.json')!;
      expect(validateManifest(after).valid).toBe(true);
      expect(JSON.parse(after)).toEqual(manifest);
      expect(after.includes('\r\n')).toBe(eol === '\r\n');
    }
  });

  it('leaves a bmad.json without one as it is, byte for byte', () => {
    for (const text of ['{ "name": "x",\n"version": "1.0.0" }', 'not json', '[1]', 'null']) {
      const files = new Map([['bmad.json', text]]);
      expect(takeManifestOrigin(files)).toBeNull();
      expect(files.get('bmad.json')).toBe(text);
    }
    expect(takeManifestOrigin(new Map())).toBeNull();
  });
});
