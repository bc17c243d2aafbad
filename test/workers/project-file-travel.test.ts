/**
 * What a project is beyond its package travels in its `.bmad` (assets/crewagent-project.json,
 * shared/bmad/project-file.ts): export → import into a new project keeps the content language set
 * by hand and the project's settings; a value the import cannot use is ignored with a warning
 * naming it, and everything else is imported.
 */
import { env, exports } from 'cloudflare:workers';
import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ORIGIN, signedInClient, type TestClient } from './client.ts';

type Files = Record<string, string>;
const PROJECT_FILE = 'assets/crewagent-project.json';

async function send(client: TestClient, path: string, files: Files, name?: string) {
  const entries: Zippable = {};
  for (const [file, text] of Object.entries(files)) entries[file] = strToU8(text);
  const form = new FormData();
  form.set('file', new File([new Uint8Array(zipSync(entries))], 'package.bmad', { type: 'application/zip' }));
  if (name !== undefined) form.set('name', name);
  const res = await exports.default.fetch(`${ORIGIN}${path}`, { method: 'POST', headers: { origin: ORIGIN, cookie: client.cookie! }, body: form });
  return { status: res.status, ...((await res.json()) as { data: any; error: any }) };
}

async function exportFiles(client: TestClient, projectId: string): Promise<Files> {
  const res = await exports.default.fetch(`${ORIGIN}/api/projects/${projectId}/export`, { headers: { cookie: client.cookie! } });
  expect(res.status).toBe(200);
  return Object.fromEntries(Object.entries(unzipSync(new Uint8Array(await res.arrayBuffer()))).map(([p, b]) => [p, strFromU8(b)]));
}

describe('the content language and settings of a project', () => {
  it('come back on export → import into a new project', async () => {
    const user = await signedInClient('Travel');
    const first = await send(user, '/api/projects/import', env.TEST_PACKAGES['two-workflows']);
    expect(first.status, JSON.stringify(first.error)).toBe(201);
    expect(first.data.project).toMatchObject({ contentLanguage: 'en', settings: { requiredApprovals: 0 } });
    const base = `/api/projects/${first.data.project.id}`;
    // An English package its owner says is written in Chinese, and AI changes need two approvals.
    const changed = await user.patch(base, { contentLanguage: 'zh', requiredApprovals: 2 });
    expect(changed.status, JSON.stringify(changed.error)).toBe(200);

    const files = await exportFiles(user, first.data.project.id);
    expect(JSON.parse(files[PROJECT_FILE]!)).toMatchObject({ contentLanguage: 'zh', settings: { requiredApprovals: 2 } });
    const preview = await send(user, '/api/projects/import/preview', files);
    expect(preview.data.preview).toMatchObject({ valid: true, contentLanguage: 'zh', warnings: [] });
    const again = await send(user, '/api/projects/import', files, 'Support desk, again');
    expect(again.status, JSON.stringify(again.error)).toBe(201);
    expect(again.data.warnings).toEqual([]);
    expect(again.data.project).toMatchObject({ name: 'Support desk, again', contentLanguage: 'zh', settings: { requiredApprovals: 2 } });
    expect((await user.get(`/api/projects/${again.data.project.id}`)).data.project).toMatchObject({ contentLanguage: 'zh', settings: { requiredApprovals: 2 } });
    // And it is not an asset of the new project.
    const assets = (await user.get(`/api/projects/${again.data.project.id}/assets`)).data.assets as Array<{ path: string }>;
    expect(assets.map((a) => a.path)).not.toContain(PROJECT_FILE);
  });

  it('ignores a value it cannot use with a warning naming it, and imports the rest', async () => {
    const user = await signedInClient('TravelBad');
    const file = { format: 'crewagent-project', formatVersion: 1, name: '客服工作台', contentLanguage: 'fr', settings: { requiredApprovals: 42 } };
    const files = { ...env.TEST_PACKAGES['two-workflows'], [PROJECT_FILE]: JSON.stringify(file, null, 2) };
    const preview = await send(user, '/api/projects/import/preview', files);
    expect(preview.status).toBe(200);
    expect(preview.data.preview.valid).toBe(true);
    const fields = (notes: Array<{ code: string; path: string; params?: { field?: string } }>) => notes.map((n) => [n.code, n.path, n.params?.field]);
    const expected = [
      ['PROJECT_FILE_VALUE_IGNORED', PROJECT_FILE, 'contentLanguage'],
      ['PROJECT_FILE_VALUE_IGNORED', PROJECT_FILE, 'settings.requiredApprovals'],
    ];
    expect(fields(preview.data.preview.warnings)).toEqual(expected);
    const res = await send(user, '/api/projects/import', files);
    expect(res.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data.warnings.map((w: { code: string; filePath: string; params?: { field?: string } }) => [w.code, w.filePath, w.params?.field])).toEqual(expected);
    expect(res.data.project).toMatchObject({ name: '客服工作台', contentLanguage: 'en', settings: { requiredApprovals: 0 } });
  });
});
