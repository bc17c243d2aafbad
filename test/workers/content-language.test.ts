import { env, exports } from 'cloudflare:workers';
import { strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ORIGIN, signedInClient, type TestClient } from './client.ts';

type Files = Record<string, string>;

function zip(files: Files): Uint8Array {
  const entries: Zippable = {};
  for (const [path, text] of Object.entries(files)) entries[path] = strToU8(text);
  return zipSync(entries);
}

async function send(client: TestClient, path: string, files: Files) {
  const form = new FormData();
  form.set('file', new File([new Uint8Array(zip(files))], 'package.bmad', { type: 'application/zip' }));
  const res = await exports.default.fetch(`${ORIGIN}${path}`, { method: 'POST', headers: { origin: ORIGIN, cookie: client.cookie! }, body: form });
  return { status: res.status, ...((await res.json()) as { data: any; error: any }) };
}

describe('the content language of a project', () => {
  it('is detected on import: the Chinese example package is zh, the English one en, and the preview says so first', async () => {
    const user = await signedInClient('Lin');
    const preview = await send(user, '/api/projects/import/preview', env.TEST_PACKAGES['zh-review']);
    expect(preview.status).toBe(200);
    expect(preview.data.preview).toMatchObject({ valid: true, contentLanguage: 'zh' });
    const zh = await send(user, '/api/projects/import', env.TEST_PACKAGES['zh-review']);
    expect(zh.status).toBe(201);
    expect(zh.data.project).toMatchObject({ name: 'requirements-review', contentLanguage: 'zh' });
    const en = await send(user, '/api/projects/import', env.TEST_PACKAGES['two-workflows']);
    expect(en.data.project.contentLanguage).toBe('en');
    const made = await user.post('/api/projects', { name: '新项目' });
    expect(made.data.project.contentLanguage).toBe('en');
  });

  it('is editable through the project API (the Settings form), and refuses a language the product does not speak', async () => {
    const user = await signedInClient('Chen');
    const { data } = await send(user, '/api/projects/import', env.TEST_PACKAGES['two-workflows']);
    const base = `/api/projects/${data.project.id}`;
    const changed = await user.patch(base, { contentLanguage: 'zh' });
    expect(changed.status).toBe(200);
    expect(changed.data.project.contentLanguage).toBe('zh');
    expect((await user.get(base)).data.project.contentLanguage).toBe('zh');
    const refused = await user.patch(base, { contentLanguage: 'fr' });
    expect(refused.status).toBe(422);
    expect(refused.error?.code).toBe('VALIDATION_FAILED');
    expect((await user.get(base)).data.project.contentLanguage).toBe('zh');
  });
});

describe('the Chinese example package', () => {
  it('imports with its Chinese names and labels, validates, and exports back byte for byte', async () => {
    const user = await signedInClient('Wang');
    const files = env.TEST_PACKAGES['zh-review'];
    const imported = await send(user, '/api/projects/import', files);
    expect(imported.status).toBe(201);
    expect(imported.data.warnings).toEqual([]);
    const base = `/api/projects/${imported.data.project.id}`;
    expect((await user.get(`${base}/validation`)).data.report).toMatchObject({ valid: true, errors: [] });
    const workflows = await user.get(`${base}/workflows`);
    expect(workflows.data.workflows.map((w: { name: string }) => w.name)).toEqual(['需求评审']);
    const step = await user.get(`${base}/workflows/req-review/steps/collect-requirements`);
    expect(step.data.step.markdown).toContain('把业务方的想法整理成一份可以评审的需求文档');

    const exported = await exports.default.fetch(`${ORIGIN}${base}/export`, { headers: { cookie: user.cookie! } });
    expect(exported.status).toBe(200);
    const out = unzipSync(new Uint8Array(await exported.arrayBuffer()));
    expect(Object.keys(out).sort()).toEqual(Object.keys(files).sort());
    // Bytes, not decoded text: a re-encoding (NFC/NFD, a BOM, \r\n) would show here.
    for (const [path, text] of Object.entries(files)) expect(out[path], path).toEqual(strToU8(text));
  });
});

describe('packages with text that is not ASCII', () => {
  it('proposes an ASCII name for a Chinese-named asset in the preview, and the import keeps its content under it with the links rewritten', async () => {
    const user = await signedInClient('Liu');
    const files: Files = {};
    for (const [path, text] of Object.entries(env.TEST_PACKAGES['zh-review'])) {
      files[path === 'assets/templates/review-checklist.md' ? 'assets/templates/评审清单.md' : path] = text.replaceAll('review-checklist.md', '评审清单.md');
    }
    const preview = await send(user, '/api/projects/import/preview', files);
    expect(preview.status).toBe(200);
    expect(preview.data.preview.valid).toBe(true);
    const renamed = preview.data.preview.assets.find((a: { renamedFrom?: string }) => a.renamedFrom === 'assets/templates/评审清单.md');
    expect(renamed.path).toMatch(/^assets\/templates\/asset-[0-9a-f]{8}\.md$/u);
    expect(preview.data.preview.warnings).toEqual([expect.objectContaining({ code: 'ASSET_RENAMED', path: renamed.path })]);

    const imported = await send(user, '/api/projects/import', files);
    expect(imported.status).toBe(201);
    const base = `/api/projects/${imported.data.project.id}`;
    const asset = await user.get(`${base}/assets/file?path=${encodeURIComponent(renamed.path)}`);
    expect(asset.status).toBe(200);
    expect(asset.data.asset.content).toBe(env.TEST_PACKAGES['zh-review']['assets/templates/review-checklist.md']);
    const step = await user.get(`${base}/workflows/req-review/steps/collect-requirements`);
    expect(step.data.step.markdown).toContain(`@pkg/${renamed.path}`);
    expect((await user.get(`${base}/validation`)).data.report).toMatchObject({ valid: true, errors: [], warnings: [] });
  });

  it('imports a mixed English and Chinese package without loss and exports it byte for byte', async () => {
    const user = await signedInClient('Mixed');
    const files: Files = { ...env.TEST_PACKAGES['two-workflows'] };
    const step = 'workflows/ticket-triage/steps/classify-issue.md';
    files[step] = files[step]!.replace('## Instructions\n', '## Instructions\n\n先读工单，再按 severity 分类。Use the policy (支持政策) — 𠀀 and 🎧 stay.\n');
    files['agents.json'] = files['agents.json']!.replace('"name": "Rosa"', '"name": "罗莎 Rosa"');
    const imported = await send(user, '/api/projects/import', files);
    expect(imported.status).toBe(201);
    expect(imported.data.project.contentLanguage).toBe('en');
    const base = `/api/projects/${imported.data.project.id}`;
    expect((await user.get(`${base}/validation`)).data.report).toMatchObject({ valid: true, errors: [] });
    const exported = await exports.default.fetch(`${ORIGIN}${base}/export`, { headers: { cookie: user.cookie! } });
    const out = unzipSync(new Uint8Array(await exported.arrayBuffer()));
    expect(Object.keys(out).sort()).toEqual(Object.keys(files).sort());
    for (const [path, text] of Object.entries(files)) expect(out[path], path).toEqual(strToU8(text));
  });
});
