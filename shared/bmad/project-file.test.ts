import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../test/fixtures/packages.ts';
import { PROJECT_FILE_PATH, projectFileText, takeProjectFile } from './project-file.ts';
import { packageFromFiles } from './package-files.ts';
import { validatePackage } from './pipeline.ts';

const EMPTY = { industryDomain: '', targetUsers: '', painPoints: '', expectedOutcomes: '', qualityStyle: '' };
const PROFILE = { ...EMPTY, industryDomain: '客户服务', targetUsers: 'Support leads' };

describe('the project file', () => {
  it('is written only when it says something bmad.json does not', () => {
    expect(projectFileText({ name: 'support-desk', domainProfile: EMPTY }, 'support-desk')).toBeNull();
    expect(projectFileText({ name: '客服工作台', domainProfile: EMPTY }, 'package')).not.toBeNull();
    expect(projectFileText({ name: 'support-desk', domainProfile: PROFILE }, 'support-desk')).not.toBeNull();
  });

  it('reads back the name and domain profile it was written with, in CRLF too, and leaves no asset behind', () => {
    for (const eol of ['\n', '\r\n'] as const) {
      const text = projectFileText({ name: '客服工作台 (2)', domainProfile: PROFILE }, 'support-desk', eol)!;
      expect(text.includes('\r\n')).toBe(eol === '\r\n');
      const files = new Map([...loadFixture('two-workflows'), [PROJECT_FILE_PATH, text]]);
      expect(takeProjectFile(files)).toEqual({ name: '客服工作台 (2)', domainProfile: PROFILE });
      expect(files.has(PROJECT_FILE_PATH)).toBe(false);
    }
  });

  it('is a valid package asset: a package holding it validates as cleanly as one without it', () => {
    const files = loadFixture('two-workflows');
    const withFile = new Map([...files, [PROJECT_FILE_PATH, projectFileText({ name: '客服工作台', domainProfile: PROFILE }, 'support-desk')!]]);
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

  it('takes each field only when it is valid: an invalid one falls back to an import without the file', () => {
    const files = new Map([[PROJECT_FILE_PATH, JSON.stringify({ format: 'crewagent-project', name: '   ', domainProfile: { industryDomain: 3 } })]]);
    expect(takeProjectFile(files)).toEqual({});
    expect(files.size).toBe(0);
    const long = new Map([[PROJECT_FILE_PATH, JSON.stringify({ format: 'crewagent-project', name: 'x'.repeat(101), domainProfile: { unknown: 'field' } })]]);
    expect(takeProjectFile(long)).toEqual({});
  });
});
