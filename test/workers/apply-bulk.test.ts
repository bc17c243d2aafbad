/**
 * An apply of many files through the real Worker and session object (issue 19): the batch writes
 * exactly the rows expected with a few statements (json_each over JSON parameters, chunked under
 * D1's size limit, a plain statement for a file too large for a chunk), keeps every file's content
 * before and after in history, bumps each revision once, stays two D1 round trips, and a stale
 * revision caught inside the batch leaves nothing behind.
 */
import { env, exports } from 'cloudflare:workers';
import { strToU8, zipSync, type Zippable } from 'fflate';
import { describe, expect, it } from 'vitest';
import { d1RoundTripLog, d1RoundTrips, resetD1RoundTrips } from '../../worker/db/instrumented-d1.ts';
import { sha256Hex } from '../../shared/hash.ts';
import { ORIGIN, signedInClient, type TestClient } from './client.ts';
import { STEP, WF, currentStep, stepSession, supportDeskProject, tableSnapshot } from './sessions.ts';

const STEP_KEY = `step:${WF}/${STEP}`;
const utf8Bytes = (text: string) => new TextEncoder().encode(text).byteLength;
const assetUpsert = (path: string, content: string) => ({ op: 'upsert', targetType: 'asset', target: { path }, payload: { content }, reason: 'bulk' });
const assetDelete = (path: string) => ({ op: 'delete', targetType: 'asset', target: { path }, reason: 'bulk' });
const stepUpsert = (markdown: string) => ({ op: 'upsert', targetType: 'step', target: { workflowId: WF, nodeId: STEP }, payload: { stepMarkdown: markdown }, reason: 'bulk' });
const changeSet = (operations: unknown[]) => ({ schemaVersion: '1.0', targetType: 'step', mode: 'optimize', operations, impact: { objects: [STEP_KEY] } });

/** Text that breaks naive quoting and JSON: quotes, backslashes, control characters (no NUL), CJK, emoji, JSON-looking and SQL-looking text. */
const HOSTILE = [
  `"double" 'single' \`back\` \\ \\\\ \\n (a backslash and an n)`,
  '\u0001\u0002\u0007\b\f\u001b\u001f\t\r\n\u007f \u2028 \u2029',
  'Grüße — 東京 — Ελληνικά — עברית — 🙂👩‍💻🏳️‍🌈 — \uFEFF',
  '["not", "an", "array"] {"nor": "an object"} null true 123 -0 1e9',
  "'); DROP TABLE assets; -- $[0] ?1 :name",
].join('\n');

/** A package imported through the API (the upload path the tests' fixtures take). */
async function importPackage(owner: TestClient, files: Record<string, string>): Promise<string> {
  const entries: Zippable = {};
  for (const [path, text] of Object.entries(files)) entries[path] = strToU8(text);
  const form = new FormData();
  form.set('file', new File([new Uint8Array(zipSync(entries))], 'package.bmad', { type: 'application/zip' }));
  form.set('name', 'Bulk apply');
  const res = await exports.default.fetch(`${ORIGIN}/api/projects/import`, { method: 'POST', headers: { origin: ORIGIN, cookie: owner.cookie! }, body: form });
  const json = (await res.json()) as { data: any; error: any };
  if (res.status !== 201) throw new Error(`import failed: ${JSON.stringify(json.error)}`);
  return json.data.project.id as string;
}

async function counted<T>(run: () => Promise<T>): Promise<{ result: T; trips: number; log: readonly string[] }> {
  resetD1RoundTrips();
  const result = await run();
  return { result, trips: d1RoundTrips(), log: [...d1RoundTripLog()] };
}

async function stageAndApply(owner: TestClient, base: string, operations: unknown[]) {
  const sessionId = await stepSession(owner, base);
  const path = `${base}/ai/sessions/${sessionId}`;
  const staged = await owner.post(`${path}/stage`, { changeSet: changeSet(operations) });
  if (staged.status !== 200) throw new Error(`stage failed: ${JSON.stringify(staged.error)}`);
  const apply = () => owner.post(`${path}/apply`, { changeSetId: staged.data.changeSetId, contentHash: staged.data.contentHash, confirmSource: 'ui_manual_apply' });
  return { sessionId, staged, apply };
}

/** The statements of the apply's batch (the round trip that writes revision_history). */
function batchStatements(log: readonly string[]): string[] {
  const batch = log.find((sql) => sql.includes('revision_history'));
  if (!batch) throw new Error(`no batch in:\n${log.join('\n')}`);
  return batch.split(';').filter((s) => s.trim() !== '');
}

async function historyOf(projectId: string, sessionId: string) {
  const rows = await env.DB.prepare(
    'SELECT object_key, action, old_revision, new_revision, content_before, content_after, meta_json, write_id, change_set_id FROM revision_history WHERE project_id = ? AND session_id = ? ORDER BY object_key',
  )
    .bind(projectId, sessionId)
    .all<Record<string, unknown>>();
  return rows.results;
}

async function revisions(projectId: string) {
  const project = await env.DB.prepare('SELECT agents_revision, assets_revision FROM projects WHERE id = ?').bind(projectId).first<{ agents_revision: number; assets_revision: number }>();
  const workflow = await env.DB.prepare('SELECT revision FROM workflows WHERE project_id = ? AND id = ?').bind(projectId, WF).first<{ revision: number }>();
  return { agents: project!.agents_revision, assets: project!.assets_revision, workflow: workflow!.revision };
}

describe('an apply of many files', () => {
  it('writes 100 files with a handful of statements in one batch, two round trips, history complete and each revision bumped once', async () => {
    const { owner, projectId, base } = await supportDeskProject();
    const step = await currentStep(owner, base);
    const policy = (await owner.get(`${base}/assets/file?path=assets/policies/support-policy.md`)).data.asset.content as string;
    const before = await revisions(projectId);
    const markdown = step.markdown.replace('3. Set `variables.missingDetails`', '3. Cite the policy section.\n4. Set `variables.missingDetails`');
    const newAssets = Array.from({ length: 98 }, (_, i) => ({ path: `assets/bulk/file-${String(i).padStart(3, '0')}.md`, content: `# File ${i}\n\n${'A line of text.\n'.repeat(40)}` }));
    const policyAfter = `${policy}\nOne more rule.\n`;
    const { sessionId, staged, apply } = await stageAndApply(owner, base, [
      stepUpsert(markdown),
      assetUpsert('assets/policies/support-policy.md', policyAfter),
      ...newAssets.map((a) => assetUpsert(a.path, a.content)),
    ]);
    expect(staged.data.files).toHaveLength(100);
    const mirroredAtStage = await env.DB.prepare('SELECT change_set_json FROM ai_change_sets WHERE id = ?').bind(staged.data.changeSetId).first<{ change_set_json: string }>();
    expect(JSON.parse(mirroredAtStage!.change_set_json).operations).toHaveLength(100);

    const applied = await counted(apply);
    expect(applied.result.status, JSON.stringify(applied.result.error)).toBe(200);
    // Who is asking, then the batch: the session's baseline was read at stage time.
    expect(applied.trips, applied.log.join('\n')).toBe(2);
    // Before: one INSERT per history row and one statement per file (205). Now per scope (the
    // workflow, the assets): the history chunk, the file chunk, the bump; then the change set, the
    // session and the audit row.
    const statements = batchStatements(applied.log);
    expect(statements.length, statements.join('\n')).toBe(9);

    const after = await revisions(projectId);
    expect(after).toEqual({ agents: before.agents, assets: before.assets + 1, workflow: before.workflow + 1 });
    expect(applied.result.data.newRevision).toMatchObject({ workflowRevision: after.workflow, assetsRevision: after.assets, agentsRevision: after.agents });

    const history = await historyOf(projectId, sessionId);
    expect(history).toHaveLength(100);
    expect(new Set(history.map((h) => h.write_id)).size).toBe(1);
    const byKey = new Map(history.map((h) => [h.object_key as string, h]));
    expect(byKey.get(STEP_KEY)).toMatchObject({ action: 'ai_apply', old_revision: before.workflow, new_revision: before.workflow + 1, content_before: step.markdown, content_after: markdown, change_set_id: staged.data.changeSetId });
    expect(JSON.parse(byKey.get(STEP_KEY)!.meta_json as string)).toEqual({ op: 'update', path: step.path });
    expect(byKey.get('asset:assets/policies/support-policy.md')).toMatchObject({ old_revision: before.assets, new_revision: before.assets + 1, content_before: policy, content_after: policyAfter });
    for (const asset of newAssets) {
      const row = byKey.get(`asset:${asset.path}`)!;
      expect(row).toMatchObject({ action: 'ai_apply', old_revision: before.assets, new_revision: before.assets + 1, content_before: null, content_after: asset.content });
      expect(JSON.parse(row.meta_json as string)).toEqual({ op: 'create', path: asset.path });
    }

    const stored = await env.DB.prepare("SELECT path, content, bytes, sha256 FROM assets WHERE project_id = ? AND path LIKE 'assets/bulk/%' ORDER BY path").bind(projectId).all<Record<string, unknown>>();
    expect(stored.results).toEqual(await Promise.all(newAssets.map(async (a) => ({ path: a.path, content: a.content, bytes: utf8Bytes(a.content), sha256: await sha256Hex(a.content) }))));
    expect((await currentStep(owner, base)).markdown).toBe(markdown);
    // The change set (its 100 files' text) was mirrored at stage time: the apply only marks it.
    expect(statements.some((s) => s.includes('INSERT INTO ai_change_sets'))).toBe(false);
    expect(statements.some((s) => s.includes('UPDATE ai_change_sets'))).toBe(true);
    const changeSetRow = await env.DB.prepare('SELECT status, change_set_json FROM ai_change_sets WHERE id = ?').bind(staged.data.changeSetId).first();
    expect(changeSetRow).toEqual({ status: 'applied', change_set_json: mirroredAtStage!.change_set_json });
  });

  it('writes the whole change-set row at apply when its mirror at stage time failed', async () => {
    const { owner, projectId, base } = await supportDeskProject();
    const trigger = `fail_mirror_${projectId}`;
    await env.DB.exec(`CREATE TRIGGER ${trigger} BEFORE INSERT ON ai_change_sets WHEN NEW.project_id = '${projectId}' BEGIN SELECT RAISE(ABORT, 'injected failure'); END;`);
    let run: Awaited<ReturnType<typeof stageAndApply>>;
    try {
      run = await stageAndApply(owner, base, [assetUpsert('assets/bulk/one.md', '# One\n')]);
    } finally {
      await env.DB.exec(`DROP TRIGGER ${trigger};`);
    }
    expect(await env.DB.prepare('SELECT id FROM ai_change_sets WHERE id = ?').bind(run.staged.data.changeSetId).first()).toBeNull();
    const applied = await run.apply();
    expect(applied.status, JSON.stringify(applied.error)).toBe(200);
    const row = await env.DB.prepare('SELECT status, change_set_json, content_hash FROM ai_change_sets WHERE id = ?').bind(run.staged.data.changeSetId).first<Record<string, string>>();
    expect(row).toMatchObject({ status: 'applied', content_hash: run.staged.data.contentHash });
    expect(JSON.parse(row!.change_set_json!).operations).toEqual([assetUpsert('assets/bulk/one.md', '# One\n')]);
  });

  it('keeps quotes, control characters, unicode, several chunks and a 1 MB step byte for byte, and deletes', async () => {
    const packageFiles = env.TEST_PACKAGES['two-workflows'] as Record<string, string>;
    const stepFile = `workflows/${WF}/steps/${STEP}.md`;
    // Numbered lines: real text compresses a few times, and import refuses a file that compresses past 200× (a zip bomb).
    const lines = Array.from({ length: Math.ceil(1_000_000 / 40) }, (_, i) => `Guidance line ${i} for the classifier, case ${(i * 7919) % 10_007}.`).join('\n');
    const padded = (bytes: number) => `${packageFiles[stepFile]}\n${lines}`.slice(0, bytes);
    // A step of 1,000,000 bytes (a package file may be 1 MiB; the Builder and a change set take 512 KiB):
    // the apply below replaces it, and that history row (1 MB before) is too large for a JSON chunk,
    // so it takes the plain statement.
    const oneMegabyte = padded(1_000_000);
    const owner = await signedInClient('Owner');
    const projectId = await importPackage(owner, { ...packageFiles, [stepFile]: oneMegabyte });
    const base = `/api/projects/${projectId}`;
    const doomed = 'assets/bulk/doomed.md';
    expect((await owner.put(`${base}/assets/file`, { path: doomed, content: HOSTILE })).status).toBe(200);
    const step = await currentStep(owner, base);
    expect(step.markdown).toBe(oneMegabyte);
    // The largest text a change set may stage (512 KiB): it travels inside a JSON chunk.
    const bigStep = `${padded(500_000)}${HOSTILE}`;
    // Three assets of 250 kB: more than one chunk holds (600,000 characters), so the rows split.
    const large = [0, 1, 2].map((i) => ({ path: `assets/bulk/large-${i}.md`, content: `# Large ${i}\n${HOSTILE}\n${'x'.repeat(250_000 - 200)}` }));
    const hostile = { path: 'assets/bulk/hostile.md', content: HOSTILE };
    const empty = { path: 'assets/bulk/empty.md', content: '' };
    const jsonish = { path: 'assets/bulk/number.json', content: '123' };
    const stage = async (operations: unknown[]) => {
      const run = await stageAndApply(owner, base, operations);
      const applied = await counted(run.apply);
      expect(applied.result.status, JSON.stringify(applied.result.error)).toBe(200);
      return { ...run, applied };
    };
    const first = await stage([stepUpsert(bigStep), assetDelete(doomed), ...[hostile, empty, jsonish].map((a) => assetUpsert(a.path, a.content))]);
    const second = await stage(large.map((a) => assetUpsert(a.path, a.content)));
    const shapes = (log: readonly string[], table: string) => {
      const writes = batchStatements(log).filter((s) => s.includes(`INSERT INTO ${table}`));
      return { chunks: writes.filter((s) => s.includes('json_each')).length, plain: writes.filter((s) => !s.includes('json_each')).length };
    };
    // The step's history row (1 MB before) alone in a plain statement; the assets' rows in one chunk.
    expect(shapes(first.applied.log, 'revision_history')).toEqual({ chunks: 1, plain: 1 });
    // 750 kB of assets: two chunks of history rows and two of asset rows.
    expect(shapes(second.applied.log, 'revision_history')).toEqual({ chunks: 2, plain: 0 });
    expect(shapes(second.applied.log, 'assets')).toEqual({ chunks: 2, plain: 0 });

    expect((await currentStep(owner, base)).markdown).toBe(bigStep);
    const stored = await env.DB.prepare("SELECT path, content, bytes, sha256, typeof(content) AS type FROM assets WHERE project_id = ? AND path LIKE 'assets/bulk/%' ORDER BY path").bind(projectId).all<Record<string, unknown>>();
    const expected = [empty, hostile, ...large, jsonish];
    expect(stored.results).toEqual(await Promise.all(expected.map(async (a) => ({ path: a.path, content: a.content, bytes: utf8Bytes(a.content), sha256: await sha256Hex(a.content), type: 'text' }))));

    const history = [...(await historyOf(projectId, first.sessionId)), ...(await historyOf(projectId, second.sessionId))];
    const byKey = new Map(history.map((h) => [h.object_key as string, h]));
    expect(byKey.size).toBe(history.length);
    expect(byKey.get(STEP_KEY)).toMatchObject({ content_before: oneMegabyte, content_after: bigStep });
    expect(byKey.get(`asset:${doomed}`)).toMatchObject({ content_before: HOSTILE, content_after: null });
    for (const a of [hostile, empty, jsonish, ...large]) expect(byKey.get(`asset:${a.path}`)).toMatchObject({ content_before: null, content_after: a.content });
    const types = await env.DB.prepare("SELECT DISTINCT typeof(content_after) AS type FROM revision_history WHERE session_id IN (?, ?) AND content_after IS NOT NULL").bind(first.sessionId, second.sessionId).all();
    expect(types.results).toEqual([{ type: 'text' }]);
  });

  it('leaves no partial state when a revision moved between the approval and the apply', async () => {
    const { owner, projectId, base, member } = await supportDeskProject();
    const reviewer = await member('editor');
    expect((await owner.patch(base, { requiredApprovals: 1 })).status).toBe(200);
    const step = await currentStep(owner, base);
    const markdown = step.markdown.replace('3. Set `variables.missingDetails`', '3. Cite the policy section.\n4. Set `variables.missingDetails`');
    const files = Array.from({ length: 60 }, (_, i) => assetUpsert(`assets/bulk/file-${i}.md`, `# ${i}\n${'y'.repeat(15_000)}`));
    const { sessionId, staged, apply } = await stageAndApply(owner, base, [stepUpsert(markdown), ...files]);
    expect((await owner.post(`${base}/ai/sessions/${sessionId}/validate`)).data.valid).toBe(true);
    const approved = await reviewer.post(`${base}/ai/sessions/${sessionId}/approvals`, { changeSetId: staged.data.changeSetId, contentHash: staged.data.contentHash });
    expect(approved.status, JSON.stringify(approved.error)).toBeLessThan(300);
    // The assets revision moves behind the session's back (no project channel told it): the
    // workflow scope's statements run first in the batch, then the assets guard fails.
    await env.DB.prepare('UPDATE projects SET assets_revision = assets_revision + 1 WHERE id = ?').bind(projectId).run();
    const snapshot = await tableSnapshot(projectId);

    const failed = await counted(apply);
    expect(failed.result.status).toBe(500);
    expect(failed.result.error).toMatchObject({ code: 'AI_APPLY_FAILED', causeCode: 'REVISION_CONFLICT' });
    // The batch held several chunks (900 kB of assets) and both scopes.
    expect(batchStatements(failed.log).filter((s) => s.includes('json_each')).length).toBeGreaterThanOrEqual(4);
    expect(await tableSnapshot(projectId)).toEqual(snapshot);
    expect(await historyOf(projectId, sessionId)).toEqual([]);
    expect(await env.DB.prepare('SELECT status FROM ai_change_sets WHERE id = ?').bind(staged.data.changeSetId).first()).not.toEqual({ status: 'applied' });
    expect((await owner.get(`${base}/ai/sessions/${sessionId}/changes`)).data.files).toHaveLength(61);
  });
});
