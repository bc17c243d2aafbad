import { describe, expect, it } from 'vitest';
import { HIGH_CHURN_LINES, computeImpact, declaredImpactNotes } from './change-impact.ts';

const target = { targetType: 'step' as const, workflowId: 'wf', targetId: 'a', mode: 'optimize' as const };

describe('computeImpact', () => {
  it('derives files, counts, objects and lines from the diffs', () => {
    const impact = computeImpact(
      [
        { key: 'step:wf/a', path: 'workflows/wf/steps/a.md', before: 'one\ntwo\n', after: 'one\nTWO\nthree\n' },
        { key: 'asset:assets/new.md', path: 'assets/new.md', before: null, after: 'x\n' },
      ],
      { target, assetPaths: new Set(['assets/new.md']) },
    );
    expect(impact.files).toEqual([
      { path: 'assets/new.md', objectKey: 'asset:assets/new.md', status: 'A', added: 1, removed: 0 },
      { path: 'workflows/wf/steps/a.md', objectKey: 'step:wf/a', status: 'M', added: 2, removed: 1 },
    ]);
    expect(impact.counts).toEqual({ files: 2, added: 1, modified: 1, deleted: 0, linesAdded: 3, linesRemoved: 1 });
    expect(impact.objects).toEqual({ workflow: [], graph: [], step: ['step:wf/a'], agent: [], asset: ['asset:assets/new.md'] });
    expect(impact.risks.map((r) => [r.flag, r.objectKey])).toEqual([['cross-object', 'asset:assets/new.md']]);
  });

  it('finds added and broken asset references in steps', () => {
    const impact = computeImpact(
      [{ key: 'step:wf/a', before: 'See assets/old.md.\n', after: 'See assets/old.md and assets/new.md and assets/missing.md.\n' }],
      { target, assetPaths: new Set(['assets/old.md', 'assets/new.md']) },
    );
    expect(impact.references).toEqual({ added: ['assets/missing.md', 'assets/new.md'], broken: ['assets/missing.md'] });
    expect(impact.risks.map((r) => r.flag)).toEqual(['broken-reference']);
  });

  it('flags high churn and deletions', () => {
    const big = Array.from({ length: HIGH_CHURN_LINES + 1 }, (_, i) => `line ${i}`).join('\n');
    const impact = computeImpact([
      { key: 'step:wf/a', before: '', after: big },
      { key: 'step:wf/b', before: 'gone\n', after: null },
    ]);
    expect(impact.risks.map((r) => [r.flag, r.objectKey])).toEqual([
      ['high-churn', 'step:wf/a'],
      ['deletes', 'step:wf/b'],
    ]);
    expect(impact.files[1]).toMatchObject({ status: 'D', removed: 1 });
  });
});

describe('declaredImpactNotes', () => {
  it('says nothing when the declaration agrees or is absent', () => {
    expect(declaredImpactNotes(undefined, ['step:wf/a'])).toEqual([]);
    expect(declaredImpactNotes({ objects: ['step:wf/a'], counts: { step: 1 } }, ['step:wf/a'])).toEqual([]);
  });

  it('notes objects declared but not changed, changed but not declared, and wrong counts', () => {
    expect(declaredImpactNotes({ objects: ['step:wf/z'], counts: { step: 3, workflow: 1 } }, ['step:wf/a', 'workflow:wf', 'graph:wf'])).toEqual([
      "impact.objects lists step:wf/z, which this change set does not change; the system's impact is used instead.",
      "this change set also changes graph:wf, step:wf/a, workflow:wf, which impact.objects does not list; the system's impact includes it.",
      "impact.counts.step is 3, but this change set changes 1; the system's count is used.",
    ]);
  });
});

describe('computeImpact: references the change breaks elsewhere', () => {
  const agents = (before: string[], after: string[]) => ({ before: new Set(before), after: new Set(after) });

  it('flags an untouched step that names an agent the change removes', () => {
    const impact = computeImpact([{ key: 'agent:reviewer', before: '{"id":"reviewer"}', after: null }], {
      agentIds: agents(['reviewer', 'writer'], ['writer']),
      steps: [
        { key: 'step:wf/a', agentId: 'reviewer', assets: [] },
        { key: 'step:wf/b', agentId: 'writer', assets: [] },
      ],
    });
    expect(impact.references.broken).toEqual(['agent:reviewer']);
    const broken = impact.risks.filter((r) => r.flag === 'broken-reference');
    expect(broken).toEqual([
      { flag: 'broken-reference', objectKey: 'step:wf/a', message: 'step:wf/a names agent reviewer, which this change removes from agents.json.', ref: 'reviewer', cause: 'agent-removed' },
    ]);
  });

  it('flags a step the change writes that names an agent that does not exist, but not an old break it did not cause', () => {
    const impact = computeImpact([{ key: 'step:wf/a', before: 'x\n', after: 'y\n' }], {
      agentIds: agents(['writer'], ['writer']),
      steps: [
        { key: 'step:wf/a', agentId: 'ghost', assets: [] },
        { key: 'step:wf/b', agentId: 'long-gone', assets: [] },
      ],
    });
    expect(impact.references.broken).toEqual(['agent:ghost']);
    expect(impact.risks.filter((r) => r.flag === 'broken-reference').map((r) => r.objectKey)).toEqual(['step:wf/a']);
  });

  it('flags an untouched step that still mentions an asset the change moves', () => {
    const impact = computeImpact(
      [
        { key: 'asset:assets/guide.md', path: 'assets/guide.md', before: 'g\n', after: null },
        { key: 'asset:assets/docs/guide.md', path: 'assets/docs/guide.md', before: null, after: 'g\n' },
      ],
      {
        assetPaths: new Set(['assets/docs/guide.md']),
        steps: [
          { key: 'step:wf/a', assets: ['assets/guide.md'] },
          { key: 'step:wf/b', assets: ['assets/docs/guide.md'] },
        ],
      },
    );
    expect(impact.references.broken).toEqual(['assets/guide.md']);
    expect(impact.risks.filter((r) => r.flag === 'broken-reference')).toEqual([
      { flag: 'broken-reference', objectKey: 'step:wf/a', message: 'step:wf/a mentions assets/guide.md, which this change deletes or moves.', ref: 'assets/guide.md', cause: 'asset-moved' },
    ]);
  });
});
