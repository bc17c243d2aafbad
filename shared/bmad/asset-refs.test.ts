import { describe, expect, it } from 'vitest';
import { assetRefExists, assetRefsInBody, assetRefsInFrontmatter, assetRefsInText } from './asset-refs.ts';
import { stepsIndexLinks } from './steps-index.ts';

describe('asset references', () => {
  it('finds @pkg/ and bare assets/ paths, not artifacts or other roots', () => {
    const text =
      'Read `@pkg/assets/policies/p.md`, then assets/data/t.yaml. Not @project/assets/x.md, not foo/assets/y.md, not artifacts/z.md. Folder: assets/templates/';
    expect(assetRefsInText(text).map((r) => r.path)).toEqual(['assets/policies/p.md', 'assets/data/t.yaml', 'assets/templates/']);
  });

  it('gives file lines for body references', () => {
    expect(assetRefsInBody('a\nb assets/x.md\n\nassets/y.md', 20)).toEqual([
      { path: 'assets/x.md', line: 21 },
      { path: 'assets/y.md', line: 23 },
    ]);
  });

  it('finds frontmatter references in document order, skipping outputs', () => {
    const data = { inputs: ['artifacts/a.md', 'assets/a.md'], outputs: ['assets/out.md'], extra: { deep: ['see assets/b.md'] } };
    expect(assetRefsInFrontmatter(data)).toEqual([
      { path: 'assets/a.md', at: ['inputs', 1] },
      { path: 'assets/b.md', at: ['extra', 'deep', 0] },
    ]);
  });

  it('treats a trailing slash as a folder', () => {
    const paths = new Set(['assets/templates/plan.md']);
    expect(assetRefExists('assets/templates/', paths)).toBe(true);
    expect(assetRefExists('assets/other/', paths)).toBe(false);
    expect(assetRefExists('assets/templates/plan.md', paths)).toBe(true);
  });
});

describe('stepsIndexLinks', () => {
  it('reads links of the ## Steps Index section, resolved against the workflow folder', () => {
    const body = '# W\n\n## Goal\n[not index](steps/x.md)\n\n## Steps Index\n\n- [a](steps/a.md)\n- [b](<./steps/b.md> "B")\n- [web](https://x.y)\n- [up](../../../out.md)\n';
    expect(stepsIndexLinks(body, 'workflows/w/workflow.md', 10)).toEqual([
      { text: 'a', target: 'steps/a.md', resolved: 'workflows/w/steps/a.md', line: 17 },
      { text: 'b', target: './steps/b.md', resolved: 'workflows/w/steps/b.md', line: 18 },
      { text: 'web', target: 'https://x.y', resolved: null, line: 19 },
      { text: 'up', target: '../../../out.md', resolved: null, line: 20 },
    ]);
  });
});
