/**
 * Counts and data per project: the same package imported into two projects has the same workflow
 * ids in both, and nothing read for one project may count or join the other's rows.
 */
import { describe, expect, it } from 'vitest';
import { signedInClient } from './client.ts';
import { importExample } from './sessions.ts';

describe('per-project counts', () => {
  it('shows each workflow its own step count when the same package is imported into two projects', async () => {
    const user = await signedInClient('Counter');
    const first = await importExample(user, 'two-workflows');
    const before = (await user.get(`/api/projects/${first}/workflows`)).data.workflows as Array<{ id: string; stepCount: number }>;
    const second = await importExample(user, 'two-workflows');
    for (const projectId of [first, second]) {
      const list = (await user.get(`/api/projects/${projectId}/workflows`)).data.workflows as Array<{ id: string; stepCount: number }>;
      expect(list).toHaveLength(2);
      for (const summary of list) {
        const full = (await user.get(`/api/projects/${projectId}/workflows/${summary.id}`)).data.workflow;
        expect(summary.stepCount).toBe(full.steps.length);
      }
      expect(list.map((w) => w.stepCount)).toEqual(before.map((w) => w.stepCount));
    }
    // A step added in one project changes that project's count only.
    await user.put(`/api/projects/${second}/workflows/weekly-report/steps/extra-step`, {
      markdown: '---\nschemaVersion: "1.1"\nnodeId: extra-step\ntype: step\n---\n## Goal\nx\n## Instructions\ny\n',
    });
    const countOf = async (projectId: string) =>
      ((await user.get(`/api/projects/${projectId}/workflows`)).data.workflows as Array<{ id: string; stepCount: number }>).find(
        (w) => w.id === 'weekly-report',
      )!.stepCount;
    const base = before.find((w) => w.id === 'weekly-report')!.stepCount;
    expect(await countOf(first)).toBe(base);
    expect(await countOf(second)).toBe(base + 1);
    const projects = (await user.get('/api/projects')).data.projects as Array<{ id: string; workflowCount: number }>;
    expect(projects.filter((p) => p.id === first || p.id === second).map((p) => p.workflowCount)).toEqual([2, 2]);
  });
});
