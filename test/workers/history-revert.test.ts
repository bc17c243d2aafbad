/**
 * "Revert this change" on an older history entry undoes only that change, like `git revert`:
 * later edits to the object on other lines are kept; later edits on the same lines refuse the
 * revert (HISTORY_REVERT_CONFLICT, nothing written), and only the explicit "restore as it was
 * before this change" discards them — as a new revision, so history still holds them.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { projectWithOwner } from './client.ts';

async function historyCount(projectId: string) {
  return (await env.DB.prepare('SELECT count(*) AS n FROM revision_history WHERE project_id = ?').bind(projectId).first<{ n: number }>())!.n;
}

/** A quick-check step whose title and checklist lines sit well apart. */
const quickCheck = (title: string, total: string, vat = 'Check the VAT line.') =>
  [
    '---',
    'schemaVersion: "1.1"',
    'nodeId: quick-check',
    'type: step',
    '---',
    `# ${title}`,
    '',
    'Open the expense report.',
    '',
    '## Checklist',
    '',
    '- Check the receipt date.',
    '- Check the merchant name.',
    `- ${total}`,
    `- ${vat}`,
    '',
  ].join('\n');

const STEP = 'step:w/quick-check';

async function stepProject() {
  const project = await projectWithOwner();
  const { owner, base } = project;
  await owner.post(`${base}/workflows`, { id: 'w', name: 'W' });
  const put = async (markdown: string) => {
    const res = await owner.put(`${base}/workflows/w/steps/quick-check`, { markdown });
    expect(res.status).toBe(200);
    return res.data.revision as number;
  };
  const read = async () => (await owner.get(`${base}/workflows/w/steps/quick-check`)).data as { revision: number; step: { markdown: string } };
  const entries = async () => (await owner.get(`${base}/history?objectKey=${STEP}`)).data.entries as Array<{ id: string; action: string; oldRevision: number; newRevision: number }>;
  return { ...project, put, read, entries };
}

describe('revert of an older change', () => {
  it('undoes only that change and keeps a later edit on other lines', async () => {
    const { owner, base, put, read, entries } = await stepProject();
    expect(await put(quickCheck('Quick check', 'Check the receipt total.'))).toBe(2);
    // The change to revert: one checklist line (2 → 3). Then a hand edit of the title (3 → 4).
    expect(await put(quickCheck('Quick check', 'Check the receipt total against the card statement.'))).toBe(3);
    expect(await put(quickCheck('Quick receipt check', 'Check the receipt total against the card statement.'))).toBe(4);
    const change = (await entries()).find((e) => e.newRevision === 3)!;
    const detail = await owner.get(`${base}/history/${change.id}`);
    expect(detail.data.entry.laterRevisions).toEqual([4]);
    // The workflow's revision now: what an explicit restore of this change names as seen.
    expect(detail.data.entry.scopeRevision).toBe(4);

    const reverted = await owner.post(`${base}/history/${change.id}/revert`);
    expect(reverted.status).toBe(200);
    expect(reverted.data).toEqual({ revision: 5, mode: 'undo', kept: [4], discarded: [] });
    expect(await read()).toMatchObject({ revision: 5, step: { markdown: quickCheck('Quick receipt check', 'Check the receipt total.') } });
    const latest = (await entries())[0]!;
    expect(latest).toMatchObject({ action: 'revert', oldRevision: 4, newRevision: 5 });
    const row = await owner.get(`${base}/history/${latest.id}`);
    expect(row.data.entry.contentBefore).toBe(quickCheck('Quick receipt check', 'Check the receipt total against the card statement.'));
  });

  it('restores as before when nothing changed the object since', async () => {
    const { owner, base, put, read, entries } = await stepProject();
    await put(quickCheck('Quick check', 'Check the receipt total.'));
    await put(quickCheck('Quick check', 'Check the total.'));
    const change = (await entries())[0]!;
    expect((await owner.get(`${base}/history/${change.id}`)).data.entry.laterRevisions).toEqual([]);
    expect((await owner.post(`${base}/history/${change.id}/revert`)).data).toEqual({ revision: 4, mode: 'undo', kept: [], discarded: [] });
    expect((await read()).step.markdown).toBe(quickCheck('Quick check', 'Check the receipt total.'));
  });

  it('refuses when a later edit touched the same lines, writing nothing; the explicit restore discards it into history', async () => {
    const { owner, base, projectId, put, read, entries } = await stepProject();
    await put(quickCheck('Quick check', 'Check the receipt total.'));
    await put(quickCheck('Quick check', 'Check the total.'));
    await put(quickCheck('Quick check', 'Check the total in the report currency.'));
    const change = (await entries()).find((e) => e.newRevision === 3)!;
    const count = await historyCount(projectId);

    const refused = await owner.post(`${base}/history/${change.id}/revert`);
    expect(refused.status).toBe(409);
    expect(refused.error).toMatchObject({ code: 'HISTORY_REVERT_CONFLICT', objectKey: STEP, laterRevisions: [4], currentRevision: 4 });
    expect(refused.error!.message).toContain('revision 4');
    expect(refused.error!.hints!.join(' ')).toContain('Restore');
    expect(await read()).toMatchObject({ revision: 4, step: { markdown: quickCheck('Quick check', 'Check the total in the report currency.') } });
    expect(await historyCount(projectId)).toBe(count);

    // The restore names the revision its person saw: one that moved on since is refused.
    const stale = await owner.post(`${base}/history/${change.id}/restore-before`, { baseRevision: 3 });
    expect(stale.error).toMatchObject({ code: 'REVISION_CONFLICT', currentRevision: 4 });
    expect((await owner.post(`${base}/history/${change.id}/restore-before`, {})).status).toBe(422);
    expect(await historyCount(projectId)).toBe(count);

    const restored = await owner.post(`${base}/history/${change.id}/restore-before`, { baseRevision: 4 });
    expect(restored.data).toEqual({ revision: 5, mode: 'restore', kept: [], discarded: [4] });
    expect((await read()).step.markdown).toBe(quickCheck('Quick check', 'Check the receipt total.'));
    const latest = (await entries())[0]!;
    expect(latest).toMatchObject({ action: 'revert', oldRevision: 4, newRevision: 5 });
    // Nothing is lost: the discarded edit is the restore's content before.
    expect((await owner.get(`${base}/history/${latest.id}`)).data.entry.contentBefore).toBe(quickCheck('Quick check', 'Check the total in the report currency.'));
  });

  it('refuses a merge that would leave a step that does not load, writing nothing', async () => {
    const { owner, base, projectId, put, read, entries } = await stepProject();
    const withTitle = (md: string, line: string, after: string) => md.replace(`${after}\n`, `${after}\n${line}\n`);
    const plain = quickCheck('Quick check', 'Check the receipt total.');
    await put(withTitle(plain, 'title: Quick check', 'nodeId: quick-check'));
    // The change removes the title key; a later edit adds one two lines further down.
    await put(plain);
    await put(withTitle(plain, 'title: Receipt check', 'type: step'));
    const change = (await entries()).find((e) => e.newRevision === 3)!;
    const count = await historyCount(projectId);
    const refused = await owner.post(`${base}/history/${change.id}/revert`);
    expect(refused.status).toBe(422);
    expect(refused.error?.code).toBe('FILE_NOT_LOADABLE');
    expect((await read()).revision).toBe(4);
    expect(await historyCount(projectId)).toBe(count);
  });

  it('undoes one change to an agent (its stored JSON) and keeps a later edit to another field', async () => {
    const { owner, base } = await projectWithOwner();
    const agent = { metadata: { name: 'Mary', title: 'Analyst', icon: 'A' }, persona: { role: 'r', identity: 'i', communication_style: 'c', principles: 'p' } };
    await owner.put(`${base}/agents/analyst`, { agent });
    await owner.put(`${base}/agents/analyst`, { agent: { ...agent, metadata: { ...agent.metadata, name: 'Maria' } } });
    await owner.put(`${base}/agents/analyst`, { agent: { ...agent, metadata: { ...agent.metadata, name: 'Maria' }, persona: { ...agent.persona, principles: 'q' } } });
    const change = (await owner.get(`${base}/history?objectKey=agent:analyst`)).data.entries.find((e: { newRevision: number }) => e.newRevision === 3);
    const reverted = await owner.post(`${base}/history/${change.id}/revert`);
    expect(reverted.data).toMatchObject({ revision: 5, mode: 'undo', kept: [4] });
    const stored = JSON.parse((await owner.get(`${base}/agents`)).data.agentsJson).agents[0];
    expect(stored).toMatchObject({ id: 'analyst', metadata: { name: 'Mary' }, persona: { principles: 'q' } });
  });
});
