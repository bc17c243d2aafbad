/**
 * A BMAD-METHOD import travels through a `.bmad` export and back: the `.bmad` keeps where every
 * file came from (`bmadMethod` in its project file, assets/crewagent-project.json, so its bmad.json
 * stays within the published v1.1 schema, which closes its top level), its import reads that back
 * (and from bmad.json, where `.bmad`s exported before carry it), and the export to BMAD-METHOD
 * gives the original files byte for byte, names outside ASCII (steps and assets) and the folder
 * they sat in included.
 */
import { exports } from 'cloudflare:workers';
import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { ORIGIN, signedInClient, type TestClient } from './client.ts';
import publishedManifestSchema from '../../schemas/bmad-v1.1/bmad.schema.json';

type Files = Record<string, string>;

/** A workflow at the zip root, named in Chinese, with a renamed data file its first step uses. */
const ZH: Files = {
  'workflow.md': '---\nname: 需求评审\ndescription: 评审需求文档\n---\n\n# 需求评审\n\n先读取 `./steps/步骤-01-收集.md` 并执行。\n',
  'steps/步骤-01-收集.md':
    "---\nname: '步骤-01-收集'\nnextStepFile: './步骤-02-评审.md'\nchecklist: '../data/清单.csv'\n---\n\n# 第一步：收集\n\n## STEP GOAL:\n\n收集需求。\n\n## Sequence of Instructions\n\n- 使用 {checklist}\n- 然后读取 {nextStepFile}\n",
  'steps/步骤-02-评审.md': "---\nname: '步骤-02-评审'\n---\n\n# 第二步：评审\n\n## STEP GOAL:\n\n评审。\n\n## Sequence of Instructions\n\n- 结束。\n",
  'data/清单.csv': '编号,检查项\n1,是否完整\n',
  'template.md': '# 模板\n',
};

function zipOf(files: Files): Uint8Array {
  const entries: Zippable = {};
  for (const [path, text] of Object.entries(files)) entries[path] = strToU8(text);
  return zipSync(entries);
}

async function importZip(client: TestClient, zip: Uint8Array, name: string) {
  const form = new FormData();
  form.set('file', new File([new Uint8Array(zip)], 'upload.zip', { type: 'application/zip' }));
  form.set('name', name);
  const res = await exports.default.fetch(`${ORIGIN}/api/projects/import`, { method: 'POST', headers: { origin: ORIGIN, cookie: client.cookie! }, body: form });
  const body = (await res.json()) as { data: any; error: any };
  expect(res.status, JSON.stringify(body.error)).toBe(201);
  return body.data.project.id as string;
}

async function exportZip(client: TestClient, projectId: string, layout: 'bmad' | 'bmad-method') {
  const res = await exports.default.fetch(`${ORIGIN}/api/projects/${projectId}/export?layout=${layout}`, { headers: { cookie: client.cookie! } });
  expect(res.status).toBe(200);
  const zip = new Uint8Array(await res.arrayBuffer());
  const files = Object.fromEntries(Object.entries(unzipSync(zip)).map(([p, b]) => [p, strFromU8(b)]));
  return { zip, files, warnings: JSON.parse(decodeURIComponent(res.headers.get('x-bmad-warnings-json') ?? '%5B%5D')) as Array<{ code: string }> };
}

const withoutWarnings = ({ 'WARNINGS.md': _w, ...files }: Files) => files;

const PROJECT_FILE = 'assets/crewagent-project.json';

/** The repository's published bmad.json schema (schemas/bmad-v1.1/), checked with ajv as other tools check it. */
const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
const validManifest = ajv.compile(publishedManifestSchema);
const schemaErrors = (text: string) => (validManifest(JSON.parse(text)) ? [] : (validManifest.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`));

/** A .bmad as this product exported it before the origin record moved out of bmad.json: `bmadMethod` in bmad.json. */
function exportedBefore(files: Files): Files {
  const { bmadMethod, ...project } = JSON.parse(files[PROJECT_FILE]!);
  const manifest = JSON.parse(files['bmad.json']!);
  return { ...files, 'bmad.json': JSON.stringify({ ...manifest, bmadMethod }, null, 2) + '\n', [PROJECT_FILE]: JSON.stringify(project, null, 2) + '\n' };
}

async function previewOf(client: TestClient, zip: Uint8Array) {
  const form = new FormData();
  form.set('file', new File([new Uint8Array(zip)], 'upload.bmad'));
  const res = await exports.default.fetch(`${ORIGIN}/api/projects/import/preview`, { method: 'POST', headers: { origin: ORIGIN, cookie: client.cookie! }, body: form });
  return ((await res.json()) as { data: any }).data.preview as { valid: boolean; errors: Array<{ path: string; message: string }> };
}

describe('BMAD-METHOD → .bmad → BMAD-METHOD', () => {
  it('an asset named outside ASCII is stored under an ASCII name and exported under its own again, links too', async () => {
    const user = await signedInClient('Assetnamer');
    const project = await importZip(user, zipOf(ZH), 'zh assets');
    const assets = (await user.get(`/api/projects/${project}/assets`)).data.assets.map((a: { path: string }) => a.path);
    expect(assets).toContainEqual(expect.stringMatching(/^assets\/data\/asset-[0-9a-f]{8}\.csv$/u));
    const direct = await exportZip(user, project, 'bmad-method');
    expect(withoutWarnings(direct.files)).toEqual(ZH);
  });

  it('gives back the original files byte for byte, names outside ASCII and the zip-root folder included', async () => {
    const user = await signedInClient('Roundtripper');
    const first = await importZip(user, zipOf(ZH), 'zh first');

    const bmad = await exportZip(user, first, 'bmad');
    expect(JSON.parse(bmad.files[PROJECT_FILE]!).bmadMethod).toMatchObject({ layout: 'bmad-method', workflows: [{ dir: '', file: 'workflow.md' }] });
    const second = await importZip(user, bmad.zip, 'zh second');
    const back = await exportZip(user, second, 'bmad-method');
    expect(withoutWarnings(back.files)).toEqual(ZH);
    expect(back.warnings.map((w) => w.code)).not.toContain('BMAD_EXPORT_REWRITTEN');
  });

  it("a .bmad export's bmad.json is valid against the published schema, and its import is the same project", async () => {
    const user = await signedInClient('Schemachecker');
    const first = await importZip(user, zipOf(ZH), 'zh schema');
    const bmad = await exportZip(user, first, 'bmad');
    expect(schemaErrors(bmad.files['bmad.json']!)).toEqual([]);
    // The schema closes bmad.json's top level, as v1.1 does: the origin record has no place there.
    const withOrigin = { ...JSON.parse(bmad.files['bmad.json']!), bmadMethod: JSON.parse(bmad.files[PROJECT_FILE]!).bmadMethod };
    expect(schemaErrors(JSON.stringify(withOrigin))).toContainEqual(expect.stringContaining('must NOT have additional properties'));

    const second = await importZip(user, bmad.zip, 'zh schema again');
    const again = await exportZip(user, second, 'bmad');
    expect(schemaErrors(again.files['bmad.json']!)).toEqual([]);
    // The same project: every file of the .bmad export again, the project file naming the new project.
    const named = (files: Files) => ({ ...files, [PROJECT_FILE]: { ...JSON.parse(files[PROJECT_FILE]!), name: '' } });
    expect(named(again.files)).toEqual(named(bmad.files));
    expect(JSON.parse(again.files[PROJECT_FILE]!).name).toBe('zh schema again');
    expect(withoutWarnings((await exportZip(user, second, 'bmad-method')).files)).toEqual(ZH);
  });

  it('a .bmad exported before, with the origin record in bmad.json, imports as before and exports within the schema', async () => {
    const user = await signedInClient('Oldexporter');
    const first = await importZip(user, zipOf(ZH), 'zh old');
    const old = exportedBefore((await exportZip(user, first, 'bmad')).files);
    expect(schemaErrors(old['bmad.json']!)).not.toEqual([]);

    const second = await importZip(user, zipOf(old), 'zh old again');
    expect(withoutWarnings((await exportZip(user, second, 'bmad-method')).files)).toEqual(ZH);
    const bmad = await exportZip(user, second, 'bmad');
    expect(schemaErrors(bmad.files['bmad.json']!)).toEqual([]);
    expect(JSON.parse(bmad.files[PROJECT_FILE]!).bmadMethod).toEqual(JSON.parse(old['bmad.json']!).bmadMethod);
  });

  it('a .bmad whose origin record would write outside the zip is refused, naming the file that holds it', async () => {
    const user = await signedInClient('Forger');
    const first = await importZip(user, zipOf(ZH), 'zh forged');
    const bmad = await exportZip(user, first, 'bmad');
    for (const forged of [{ dir: '../../', file: 'workflow.md' }, { dir: '', file: '../x.md' }, { dir: '/etc/', file: 'workflow.md' }]) {
      // In the project file, and in bmad.json as a .bmad exported before held it.
      const project = JSON.parse(bmad.files[PROJECT_FILE]!);
      Object.assign(project.bmadMethod.workflows[0], forged);
      const now = { ...bmad.files, [PROJECT_FILE]: JSON.stringify(project) };
      for (const [files, path] of [[now, PROJECT_FILE], [exportedBefore(now), 'bmad.json']] as const) {
        const preview = await previewOf(user, zipOf(files));
        expect(preview.valid).toBe(false);
        expect(preview.errors).toContainEqual(expect.objectContaining({ path, message: expect.stringContaining('bmadMethod') }));
      }
    }
  });
});

describe('WARNINGS.md', () => {
  it('one an export wrote is not imported again, and an export ships its own report, never a stale one', async () => {
    const user = await signedInClient('Reporter');
    const first = await importZip(user, zipOf(ZH), 'zh report');
    const exported = await exportZip(user, first, 'bmad-method');
    expect(exported.files['WARNINGS.md']).toMatch(/^# Export warnings \(BMAD-METHOD layout\)/u);
    const again = await importZip(user, exported.zip, 'zh report again');
    const assets = (await user.get(`/api/projects/${again}/assets`)).data.assets.map((a: { path: string }) => a.path);
    expect(assets).not.toContain('assets/WARNINGS.md');
    const back = await exportZip(user, again, 'bmad-method');
    expect(back.files['WARNINGS.md']).toContain(`${back.warnings.length} warning(s).`);

    // A stale report stored as a file (a project imported before imports dropped it) is replaced by this export's.
    const stale = '# Export warnings (BMAD-METHOD layout)\n\n9 warning(s).\n\n- **OLD** `x`: stale\n';
    expect((await user.put(`/api/projects/${again}/assets/file`, { path: 'assets/WARNINGS.md', content: stale })).status).toBe(200);
    const fresh = await exportZip(user, again, 'bmad-method');
    expect(fresh.files['WARNINGS.md']).toContain(`${fresh.warnings.length} warning(s).`);
    expect(fresh.files['WARNINGS.md']).not.toContain('stale');
    // An author's own WARNINGS.md is theirs: kept.
    expect((await user.put(`/api/projects/${again}/assets/file`, { path: 'assets/WARNINGS.md', content: '# Known issues\n' })).status).toBe(200);
    expect((await exportZip(user, again, 'bmad-method')).files['WARNINGS.md']).toBe('# Known issues\n');
  });
});
