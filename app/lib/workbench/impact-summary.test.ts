/** The impact in words: the one line above Apply and in the Sessions list, and the broken-reference warning. */
import { describe, expect, it } from 'vitest';
import { computeImpact } from '../../../shared/ai/change-impact.ts';
import { impactDigest } from '../../../shared/ai/impact-digest.ts';
import { brokenWarning, impactSummary } from './impact-summary.ts';

const TARGET = { targetType: 'step' as const, workflowId: 'wf', targetId: 'one', mode: 'optimize' as const };

describe('impactSummary', () => {
  it('counts files and lines, then names each raised flag once, broken references first', () => {
    const digest = impactDigest(
      computeImpact(
        [
          { key: 'step:wf/one', path: 'workflows/wf/steps/one.md', before: 'a\nb\n', after: 'a\nB\nsee assets/gone.md\n' },
          { key: 'asset:assets/new.md', path: 'assets/new.md', before: null, after: '# New\n' },
          { key: 'asset:assets/extra.md', path: 'assets/extra.md', before: null, after: '# Extra\n' },
        ],
        { target: TARGET, assetPaths: new Set(['assets/new.md', 'assets/extra.md']) },
      ),
    );
    expect(impactSummary(digest)).toBe('3 files (2 added, 1 modified), +4 −1 lines · broken reference, cross-object');
    expect(brokenWarning(digest)).toBe('It refers to something that does not exist: assets/gone.md. Applying keeps these references broken.');
  });

  it('says so when nothing is flagged, and warns of nothing', () => {
    const digest = impactDigest(computeImpact([{ key: 'step:wf/one', before: 'a\n', after: 'b\n' }], { target: TARGET, assetPaths: new Set() }));
    expect(impactSummary(digest)).toBe('1 file (1 modified), +1 −1 lines · no risk flags');
    expect(brokenWarning(digest)).toBeNull();
  });
});
