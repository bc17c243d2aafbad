/**
 * The import preview says the name the project will get: the one typed, else the project file's
 * (a .bmad this product exported, any script), else bmad.json's; with " (2)" when the person
 * already has a project by that name, which is then what an import under that name gets.
 */
import { env, exports } from 'cloudflare:workers';
import { strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ORIGIN, signedInClient, type TestClient } from './client.ts';

function zipOf(files: Record<string, string>): Uint8Array {
  const entries: Zippable = {};
  for (const [path, text] of Object.entries(files)) entries[path] = strToU8(text);
  return zipSync(entries);
}

async function send(client: TestClient, path: string, zip: Uint8Array, name?: string) {
  const form = new FormData();
  form.set('file', new File([new Uint8Array(zip)], 'package.bmad', { type: 'application/zip' }));
  if (name !== undefined) form.set('name', name);
  const res = await exports.default.fetch(`${ORIGIN}${path}`, { method: 'POST', headers: { origin: ORIGIN, cookie: client.cookie! }, body: form });
  return { status: res.status, ...((await res.json()) as { data: any; error: any }) };
}

describe('the name an import preview shows', () => {
  it("is the package's name, with a number once the person has a project so called, and an import under it gets it", async () => {
    const user = await signedInClient('PreviewName');
    const zip = zipOf(env.TEST_PACKAGES['two-workflows']);
    const first = await send(user, '/api/projects/import/preview', zip);
    expect(first.status).toBe(200);
    expect(first.data.preview.name).toBe('support-desk');
    expect(first.data.preview.nameTaken).toBeUndefined();
    expect((await send(user, '/api/projects/import', zip)).status).toBe(201);

    const again = await send(user, '/api/projects/import/preview', zip);
    expect(again.data.preview).toMatchObject({ name: 'support-desk (2)', nameTaken: 'support-desk' });
    const imported = await send(user, '/api/projects/import', zip, again.data.preview.name);
    expect(imported.status, JSON.stringify(imported.error)).toBe(201);
    expect(imported.data.project.name).toBe('support-desk (2)');
    // Another person's projects do not count.
    const other = await signedInClient('PreviewNameOther');
    expect((await send(other, '/api/projects/import/preview', zip)).data.preview).toMatchObject({ name: 'support-desk' });
  });

  it("is the exported project's own name (any script), or the name typed", async () => {
    const user = await signedInClient('PreviewNameZh');
    const imported = await send(user, '/api/projects/import', zipOf(env.TEST_PACKAGES['two-workflows']), '客服工作台');
    expect(imported.status).toBe(201);
    const res = await exports.default.fetch(`${ORIGIN}/api/projects/${imported.data.project.id}/export`, { headers: { cookie: user.cookie! } });
    const exported = zipSync(unzipSync(new Uint8Array(await res.arrayBuffer())));
    const other = await signedInClient('PreviewNameZhOther');
    expect((await send(other, '/api/projects/import/preview', exported)).data.preview).toMatchObject({ name: '客服工作台' });
    expect((await send(user, '/api/projects/import/preview', exported)).data.preview).toMatchObject({ name: '客服工作台 (2)', nameTaken: '客服工作台' });
    const typed = await send(user, '/api/projects/import/preview', exported, '  Support desk copy ');
    expect(typed.data.preview.name).toBe('Support desk copy');
    expect(typed.data.preview.nameTaken).toBeUndefined();
  });
});
