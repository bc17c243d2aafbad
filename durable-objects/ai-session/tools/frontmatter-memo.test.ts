/**
 * The frontmatter parsed once per file text: a turn's repeated reads of a step (and the envelope
 * and persona over the same files) parse its YAML once, a staged edit is parsed anew, and no caller
 * can change what the next one reads.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as bmad from '../../../shared/bmad/index.ts';
import type { Baseline, OverlayEntry } from '../../../shared/ai/overlay.ts';
import type { ToolEnvelope } from '../../../shared/ai/tool-envelope.ts';
import { loadFixture } from '../../../test/fixtures/packages.ts';
import { createEffectiveView } from '../overlay/effective-view.ts';
import { frontmatterDataOf, parseFrontmatterOnce } from './frontmatter-memo.ts';
import { READ_TOOLS, type ReadToolContext } from './read-tools.ts';

// The parser, counted: every module that parses frontmatter imports it from here.
vi.mock('../../../shared/bmad/index.ts', async (original) => {
  const actual = await original<typeof bmad>();
  return { ...actual, parseFrontmatter: vi.fn(actual.parseFrontmatter) };
});
const parses = vi.mocked(bmad.parseFrontmatter);

const EC = 'ticket-triage';
const pkg = bmad.toMultiWorkflowLayout(bmad.packageFromFiles(loadFixture('two-workflows')));
const baseline: Baseline = { projectId: 'p1', pkg, revisions: { workflows: { [EC]: 12, 'weekly-report': 3 }, agents: 4, assets: 7 } };
const STEP_KEY = `step:${EC}/classify-issue`;

function context(entries: OverlayEntry[] = []): ReadToolContext {
  return {
    view: createEffectiveView(baseline, entries),
    session: { sessionId: 's1', projectId: 'p1', workflowId: EC, targetType: 'step', targetId: 'classify-issue', mode: 'optimize', createdBy: 'u1', createdAt: '2026-01-01T00:00:00.000Z' },
    domainProfile: { industryDomain: '', targetUsers: '', painPoints: '', expectedOutcomes: '', qualityStyle: '' },
  };
}

function readStep(ctx: ReadToolContext): ToolEnvelope<{ frontmatter: Record<string, unknown> | null; markdown: string }> {
  const tool = READ_TOOLS['builder.step.read'];
  return tool.run(ctx, tool.args.parse({ workflowId: EC, nodeId: 'classify-issue' })) as never;
}

/** The parses of one text since the last reset. */
const parsesOf = (text: string) => parses.mock.calls.filter(([t]) => t === text).length;

// A block: the mock a hook returns would be called as its teardown.
beforeEach(() => {
  parses.mockClear();
});

describe('frontmatter parsed once per text', () => {
  it('parses a step once over the reads of a turn', () => {
    const marker = `\n<!-- read once ${Math.random()} -->\n`;
    const original = context().view.pkg.workflows.find((w) => w.id === EC)!.steps.find((s) => s.path.includes('classify-issue'))!.markdown;
    const staged = original + marker;
    const ctx = context([{ key: STEP_KEY, deleted: false, content: staged, baseRevision: 1, baseHash: null }]);
    const reads = [1, 2, 3, 4, 5, 6].map(() => readStep(ctx));
    expect(reads.every((r) => r.ok)).toBe(true);
    expect(parsesOf(staged)).toBe(1);
    expect(reads.map((r) => (r.ok ? r.data.frontmatter : null))).toEqual(Array.from({ length: 6 }, () => bmad.parseFrontmatter(staged).ok && (bmad.parseFrontmatter(staged) as { value: { data: unknown } }).value.data));
  });

  it('parses an edited text anew: the next read sees the staged edit', () => {
    const before = '---\nagentId: triager\ntitle: Before\n---\n# Step\n';
    const after = '---\nagentId: triager\ntitle: After\n---\n# Step\n';
    expect(frontmatterDataOf(before)).toEqual({ agentId: 'triager', title: 'Before' });
    expect(frontmatterDataOf(after)).toEqual({ agentId: 'triager', title: 'After' });
    expect(frontmatterDataOf(before)).toEqual({ agentId: 'triager', title: 'Before' });
    expect([parsesOf(before), parsesOf(after)]).toEqual([1, 1]);
  });

  it('gives each caller its own data, so a change by one never reaches the next', () => {
    const text = '---\ntransitions:\n  - to: next\nagentId: a\n---\nbody\n';
    const first = frontmatterDataOf(text)!;
    (first['transitions'] as Array<{ to: string }>)[0]!.to = 'elsewhere';
    first['agentId'] = 'changed';
    expect(frontmatterDataOf(text)).toEqual({ transitions: [{ to: 'next' }], agentId: 'a' });
    const failed = parseFrontmatterOnce('---\na: [\n---\nbody\n');
    expect(failed.ok).toBe(false);
    if (!failed.ok) failed.problems.length = 0;
    expect(parseFrontmatterOnce('---\na: [\n---\nbody\n')).toEqual(bmad.parseFrontmatter('---\na: [\n---\nbody\n'));
  });
});
