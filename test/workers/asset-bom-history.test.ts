/**
 * The UTF-8 BOM an asset was uploaded with belongs to that file, through the Builder's asset
 * writes and their history: a rename takes it along and the revert of the rename brings it back
 * under the old name; a deleted file takes it away, so a new file at the same path has none, and
 * the revert of the delete brings it back. Checked on the exported bytes.
 */
import { env, exports } from 'cloudflare:workers';
import { strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ORIGIN, signedInClient, type TestClient } from './client.ts';

const NOTES = 'assets/notes/meeting-notes.md';
const NOTES_TEXT = '# Meeting notes\n\n- Monday: agree the course levels.\n';

/** The two-workflows package with an unlinked asset uploaded with a BOM, imported. */
async function importWithBomAsset(client: TestClient): Promise<string> {
  const entries: Zippable = {};
  for (const [path, text] of Object.entries(env.TEST_PACKAGES['two-workflows'])) entries[path] = strToU8(text);
  entries[NOTES] = strToU8(`\uFEFF${NOTES_TEXT}`);
  const form = new FormData();
  form.set('file', new File([new Uint8Array(zipSync(entries))], 'upload.bmad', { type: 'application/zip' }));
  const res = await exports.default.fetch(`${ORIGIN}/api/projects/import`, { method: 'POST', headers: { origin: ORIGIN, cookie: client.cookie! }, body: form });
  const body = (await res.json()) as { data: any; error: unknown };
  expect(res.status, JSON.stringify(body.error)).toBe(201);
  return body.data.project.id as string;
}

/** The exported .bmad's entries as bytes (a BOM is a byte difference decoding would hide). */
async function exportBytes(client: TestClient, projectId: string): Promise<Record<string, Uint8Array>> {
  const res = await exports.default.fetch(`${ORIGIN}/api/projects/${projectId}/export`, { headers: { cookie: client.cookie! } });
  expect(res.status, res.status === 200 ? '' : await res.text()).toBe(200);
  return unzipSync(new Uint8Array(await res.arrayBuffer()));
}

const withBom = (text: string) => strToU8(`\uFEFF${text}`);

async function entriesOf(client: TestClient, base: string, objectKey: string) {
  const res = await client.get(`${base}/history?objectKey=${encodeURIComponent(objectKey)}`);
  return res.data.entries as Array<{ id: string; action: string }>;
}

describe("an asset's BOM through its history", () => {
  it('comes back under the old name when a rename is reverted', async () => {
    const user = await signedInClient('BomRenameRevert');
    const projectId = await importWithBomAsset(user);
    const base = `/api/projects/${projectId}`;
    const moved = 'assets/notes/minutes.md';
    expect((await user.post(`${base}/assets/rename`, { from: NOTES, to: moved })).status).toBe(200);
    expect((await exportBytes(user, projectId))[moved]).toEqual(withBom(NOTES_TEXT));

    // Undo the rename: the file comes back under its old name (the rename's row for that name), then the new name goes.
    const [away] = await entriesOf(user, base, `asset:${NOTES}`);
    expect(away).toMatchObject({ action: 'rename' });
    const back = await user.post(`${base}/history/${away!.id}/revert`);
    expect(back.status, JSON.stringify(back.error)).toBe(200);
    expect((await exportBytes(user, projectId))[NOTES]).toEqual(withBom(NOTES_TEXT));
    const [arrived] = await entriesOf(user, base, `asset:${moved}`);
    expect((await user.post(`${base}/history/${arrived!.id}/revert`)).status).toBe(200);

    const out = await exportBytes(user, projectId);
    expect(out[NOTES]).toEqual(withBom(NOTES_TEXT));
    expect(out[moved]).toBeUndefined();
  });

  it('goes with a deleted file: a new file at its path has none, and the revert of the delete brings it back', async () => {
    const user = await signedInClient('BomDeleteCreate');
    const projectId = await importWithBomAsset(user);
    const base = `/api/projects/${projectId}`;
    expect((await user.delete(`${base}/assets/file?path=${encodeURIComponent(NOTES)}`)).status).toBe(200);
    const fresh = '# New notes\n\nWritten in the Builder.\n';
    expect((await user.put(`${base}/assets/file`, { path: NOTES, content: fresh })).status).toBe(200);
    expect((await exportBytes(user, projectId))[NOTES]).toEqual(strToU8(fresh));

    // The new file goes; undoing the first delete brings the uploaded file back, BOM and all.
    expect((await user.delete(`${base}/assets/file?path=${encodeURIComponent(NOTES)}`)).status).toBe(200);
    const deletes = (await entriesOf(user, base, `asset:${NOTES}`)).filter((e) => e.action === 'delete');
    const first = deletes.at(-1)!;
    const restored = await user.post(`${base}/history/${first.id}/revert`);
    expect(restored.status, JSON.stringify(restored.error)).toBe(200);
    expect((await exportBytes(user, projectId))[NOTES]).toEqual(withBom(NOTES_TEXT));
  });
});
