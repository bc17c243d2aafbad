/**
 * migrations/0007: workflows stored before `position` existed get one. The test puts rows back in
 * the state the column's own migration (0006) leaves them in (every position 0) and runs the
 * backfill's SQL, exactly as wrangler applies it, over them.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';

const backfill = env.TEST_MIGRATIONS.find((m) => m.name.includes('workflow_position_backfill'))!;

async function project(id: string, manifestJson: string | null) {
  await env.DB.prepare(`INSERT INTO projects (id, name, agents_json, manifest_json) VALUES (?, ?, '{}', ?)`).bind(id, id, manifestJson).run();
}

async function workflow(projectId: string, id: string, createdAt: string) {
  await env.DB.prepare(`INSERT INTO workflows (project_id, id, name, workflow_md, graph_json, position, created_at) VALUES (?, ?, ?, '', '', 0, ?)`)
    .bind(projectId, id, id, createdAt)
    .run();
}

async function order(projectId: string) {
  const { results } = await env.DB.prepare('SELECT id, position FROM workflows WHERE project_id = ? ORDER BY position, id').bind(projectId).all<{ id: string; position: number }>();
  return results.map((r) => [r.id, r.position]);
}

describe('the workflow position backfill', () => {
  it("puts the workflows an imported manifest lists in its order, then the others by creation; without a readable manifest, by creation", async () => {
    expect(backfill).toBeDefined();
    const same = '2026-01-01T00:00:00.000Z';
    const manifest = (ids: string[]) => JSON.stringify({ name: 'p', workflows: ids.map((id) => ({ id, workflow: `workflows/${id}/workflow.md` })) });
    // Imported in one batch (one created_at) as zeta, alpha; "beta" made in the Builder later; "gone" deleted since.
    await project('prj_order_imported', manifest(['zeta', 'gone', 'alpha']));
    await workflow('prj_order_imported', 'alpha', same);
    await workflow('prj_order_imported', 'zeta', same);
    await workflow('prj_order_imported', 'beta', '2026-01-02T00:00:00.000Z');
    await project('prj_order_made_here', null);
    await workflow('prj_order_made_here', 'b', '2026-01-01T00:00:00.000Z');
    await workflow('prj_order_made_here', 'a', '2026-01-03T00:00:00.000Z');
    await workflow('prj_order_made_here', 'c', '2026-01-03T00:00:00.000Z');
    await project('prj_order_broken', '{"workflows": "not a list"');
    await workflow('prj_order_broken', 'y', '2026-01-01T00:00:00.000Z');
    await workflow('prj_order_broken', 'x', '2026-01-02T00:00:00.000Z');
    await project('prj_order_no_list', '{"workflows": {"id": "x"}}');
    await workflow('prj_order_no_list', 'x', '2026-01-02T00:00:00.000Z');
    await workflow('prj_order_no_list', 'y', '2026-01-01T00:00:00.000Z');

    for (const query of backfill.queries) await env.DB.prepare(query).run();

    expect(await order('prj_order_imported')).toEqual([['zeta', 0], ['alpha', 1], ['beta', 2]]);
    expect(await order('prj_order_made_here')).toEqual([['b', 0], ['a', 1], ['c', 2]]);
    expect(await order('prj_order_broken')).toEqual([['y', 0], ['x', 1]]);
    expect(await order('prj_order_no_list')).toEqual([['y', 0], ['x', 1]]);
  });
});
