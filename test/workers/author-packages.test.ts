/**
 * Packages as real authors hand them over, through the real import and export routes: JSON nested
 * absurdly deep, upper-case extensions, a zip wrapped in several folders, CRLF line endings and
 * a UTF-8 BOM. Each is imported (or refused with a reason that names the author's own file) and
 * exported back without losing what the author wrote.
 */
import { env, exports } from 'cloudflare:workers';
import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../shared/json-depth.ts';
import { ORIGIN, signedInClient, type TestClient } from './client.ts';

type Files = Record<string, string>;

function zipOf(files: Files, prefix = ''): Uint8Array {
  const entries: Zippable = {};
  for (const [path, text] of Object.entries(files)) entries[prefix + path] = strToU8(text);
  return zipSync(entries);
}

async function send(client: TestClient, path: string, zip: Uint8Array, name?: string) {
  const form = new FormData();
  form.set('file', new File([new Uint8Array(zip)], 'upload.zip', { type: 'application/zip' }));
  if (name !== undefined) form.set('name', name);
  const res = await exports.default.fetch(`${ORIGIN}${path}`, { method: 'POST', headers: { origin: ORIGIN, cookie: client.cookie! }, body: form });
  return { status: res.status, ...((await res.json()) as { data: any; error: any }) };
}

async function projectCount() {
  return (await env.DB.prepare('SELECT count(*) AS n FROM projects').first<{ n: number }>())!.n;
}

/** The export's files as bytes-as-text (no BOM stripping: `strFromU8` keeps U+FEFF). */
async function exportFiles(client: TestClient, projectId: string, layout: 'bmad' | 'bmad-method'): Promise<Files> {
  const res = await exports.default.fetch(`${ORIGIN}/api/projects/${projectId}/export?layout=${layout}`, { headers: { cookie: client.cookie! } });
  expect(res.status).toBe(200);
  return Object.fromEntries(Object.entries(unzipSync(new Uint8Array(await res.arrayBuffer()))).map(([p, b]) => [p, strFromU8(b)]));
}

const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('JSON nested deeper than any package file needs', () => {
  for (const [what, file] of [
    ['bmad.json', 'bmad.json'],
    ['agents.json', 'agents.json'],
    ['a graph', 'workflows/ticket-triage/workflow.graph.json'],
  ] as const) {
    it(`refuses ${what} nested 40,000 levels deep with a 4xx naming the file, on preview and import, and writes nothing`, async () => {
      const user = await signedInClient('Deep');
      const files = { ...env.TEST_PACKAGES['two-workflows'] };
      files[file] = files[file]!.replace('{', `{"x":${nested(40_000)},`);
      const before = await projectCount();
      for (const route of ['/api/projects/import/preview', '/api/projects/import']) {
        const res = await send(user, route, zipOf(files));
        expect(res.status, JSON.stringify(res.error).slice(0, 300)).toBe(422);
        expect(res.error).toMatchObject({ code: 'PKG_VALIDATION_FAILED', details: [{ code: 'JSON_PARSE_ERROR', path: file }] });
        expect(res.error.message).toContain(`${file} nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep`);
      }
      expect(await projectCount()).toBe(before);
    });
  }

  it('refuses a JSON asset of a BMAD-METHOD folder nested that deep, naming it', async () => {
    const user = await signedInClient('DeepAsset');
    const files = { ...env.TEST_BMAD_METHOD.linear, 'create-brief/data/deep.json': `[${nested(40_000)}]` };
    const res = await send(user, '/api/projects/import', zipOf(files));
    expect(res.status).toBe(422);
    expect(res.error).toMatchObject({ code: 'PKG_VALIDATION_FAILED', details: [{ path: 'create-brief/data/deep.json' }] });
  });
});

describe('extensions in upper case', () => {
  it('imports a BMAD-METHOD folder with workflow.MD and steps/*.MD, and exports it back byte for byte', async () => {
    const user = await signedInClient('Upper');
    const files: Files = {
      'notes/workflow.MD': '---\nname: notes\ndescription: Keep notes.\n---\n\n# Notes\n\nLoad `./steps/step-01-collect.MD`.\n',
      'notes/steps/step-01-collect.MD': '# Collect\n\nList the notes, then load `./step-02-index.MD`.\n',
      'notes/steps/step-02-index.MD': '# Index\n\nWrite the index.\n',
    };
    const preview = await send(user, '/api/projects/import/preview', zipOf(files));
    expect(preview.status, JSON.stringify(preview.error)).toBe(200);
    expect(preview.data.preview).toMatchObject({ layout: 'bmad-method', valid: true, errors: [] });
    const res = await send(user, '/api/projects/import', zipOf(files));
    expect(res.status).toBe(201);
    const { 'WARNINGS.md': _warnings, ...out } = await exportFiles(user, res.data.project.id, 'bmad-method');
    expect(out).toEqual(files);
  });

  it('imports a .bmad whose step files end in .MD and whose asset ends in .YAML, and exports it back byte for byte', async () => {
    const user = await signedInClient('UpperBmad');
    const files: Files = {};
    for (const [path, text] of Object.entries(env.TEST_PACKAGES['two-workflows'])) {
      const renamed = path.replace(/^(workflows\/[^/]+\/steps\/[^/]+)\.md$/u, '$1.MD').replace(/\.yaml$/u, '.YAML');
      files[renamed] = text.replace(/(steps\/[a-z-]+)\.md/gu, '$1.MD').replace(/sla-targets\.yaml/gu, 'sla-targets.YAML');
    }
    const res = await send(user, '/api/projects/import', zipOf(files));
    expect(res.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data.warnings).toEqual([]);
    const { 'WARNINGS.md': _warnings, ...out } = await exportFiles(user, res.data.project.id, 'bmad');
    expect(out).toEqual(files);
  });

  it('imports "Brain Methods.CSV" under an ASCII name that keeps .CSV; a file of a type packages cannot hold is refused under the name the author gave it', async () => {
    const user = await signedInClient('UpperAsset');
    const files = { ...env.TEST_PACKAGES['two-workflows'], 'assets/data/Brain Methods.CSV': 'method,use\nlist,start\n' };
    const res = await send(user, '/api/projects/import', zipOf(files));
    expect(res.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data.warnings).toEqual([expect.objectContaining({ code: 'ASSET_RENAMED', params: { from: 'assets/data/Brain Methods.CSV', to: expect.stringMatching(/^assets\/data\/asset-[0-9a-f]{8}\.CSV$/u) } })]);

    const refused = await send(user, '/api/projects/import', zipOf({ ...env.TEST_PACKAGES['two-workflows'], 'assets/data/Meeting Notes.docx': 'not really a document' }));
    expect(refused.status).toBe(422);
    expect(refused.error.details).toEqual([expect.objectContaining({ code: 'ASSET_INVALID_PATH', path: 'assets/data/Meeting Notes.docx' })]);
    expect(JSON.stringify([refused.error.message, refused.error.details])).not.toMatch(/asset-[0-9a-f]{8}/u);
  });
});

describe('a package zipped inside several folders', () => {
  it('imports a .bmad wrapped in two folders (Downloads/party-package/bmad.json) and exports it back byte for byte', async () => {
    const user = await signedInClient('Wrapped');
    const files = env.TEST_PACKAGES['two-workflows'];
    const preview = await send(user, '/api/projects/import/preview', zipOf(files, 'Downloads/party-package/'));
    expect(preview.status, JSON.stringify(preview.error)).toBe(200);
    expect(preview.data.preview).toMatchObject({ layout: 'bmad', valid: true });
    const res = await send(user, '/api/projects/import', zipOf(files, 'Downloads/party-package/'));
    expect(res.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data.warnings).toEqual([]);
    const { 'WARNINGS.md': _warnings, ...out } = await exportFiles(user, res.data.project.id, 'bmad');
    expect(out).toEqual(files);
  });

  it('says where the bmad.json is when other files sit beside the folders around it, and when it is wrapped deeper than any zip needs', async () => {
    const user = await signedInClient('Beside');
    const files = env.TEST_PACKAGES['two-workflows'];
    const beside = await send(user, '/api/projects/import', zipOf({ ...Object.fromEntries(Object.entries(files).map(([p, t]) => [`Downloads/party-package/${p}`, t])), 'Downloads/todo.txt': 'call Ana' }));
    expect(beside.status).toBe(400);
    expect(beside.error).toMatchObject({ code: 'PKG_INVALID_FORMAT', details: [{ path: 'Downloads/party-package/bmad.json' }] });
    expect(beside.error.message).toContain('there is a bmad.json at Downloads/party-package/bmad.json');
    expect(beside.error.hints).toEqual(['Zip the folder Downloads/party-package/ on its own (the one that holds bmad.json), then import that zip.']);

    const deep = `${Array.from({ length: 9 }, (_, i) => `f${i}`).join('/')}/`;
    const tooDeep = await send(user, '/api/projects/import', zipOf(files, deep));
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.error).toMatchObject({ code: 'PKG_INVALID_FORMAT', details: [{ path: `${deep}bmad.json` }] });
  });
});

/** The export's entries as bytes (a BOM is a byte difference `strFromU8` would hide). */
async function exportBytes(client: TestClient, projectId: string, layout: 'bmad' | 'bmad-method'): Promise<Record<string, Uint8Array>> {
  const res = await exports.default.fetch(`${ORIGIN}/api/projects/${projectId}/export?layout=${layout}`, { headers: { cookie: client.cookie! } });
  expect(res.status, res.status === 200 ? '' : await res.text()).toBe(200);
  const { 'WARNINGS.md': _warnings, ...files } = unzipSync(new Uint8Array(await res.arrayBuffer()));
  return files;
}
const bytesOf = (files: Files) => Object.fromEntries(Object.entries(files).map(([p, t]) => [p, strToU8(t)]));
const crlf = (files: Files): Files => Object.fromEntries(Object.entries(files).map(([p, t]) => [p, t.replace(/\r?\n/gu, '\r\n')]));

describe('line endings and BOM', () => {
  it('exports a .bmad written with CRLF byte for byte, bmad.json included', async () => {
    const user = await signedInClient('Crlf');
    const files = crlf(env.TEST_PACKAGES['two-workflows']);
    const res = await send(user, '/api/projects/import', zipOf(files));
    expect(res.status, JSON.stringify(res.error)).toBe(201);
    expect(await exportBytes(user, res.data.project.id, 'bmad')).toEqual(bytesOf(files));
  });

  it('an agent save keeps agents.json in CRLF: only the lines of the changed field differ', async () => {
    const user = await signedInClient('CrlfAgent');
    const files = crlf(env.TEST_PACKAGES['two-workflows']);
    const res = await send(user, '/api/projects/import', zipOf(files));
    const base = `/api/projects/${res.data.project.id}`;
    const before = (await user.get(`${base}/agents`)).data as { revision: number; agentsJson: string; agents: Array<{ id: string }> };
    const id = before.agents[0]!.id;
    const agent = (JSON.parse(before.agentsJson) as { agents: Array<Record<string, any>> }).agents.find((a) => a.id === id)!;
    const saved = await user.put(`${base}/agents/${id}`, { agent: { ...agent, metadata: { ...agent.metadata, title: 'Renamed title' } }, baseRevision: before.revision });
    expect(saved.status, JSON.stringify(saved.error)).toBe(200);
    const after = (await user.get(`${base}/agents`)).data.agentsJson as string;
    expect(after.split('\r\n').join('')).not.toContain('\n');
    const [a, b] = [before.agentsJson.split('\r\n'), after.split('\r\n')];
    expect(b.length).toBe(a.length);
    expect(a.filter((line, i) => line !== b[i])).toEqual([expect.stringContaining('"title"')]);
    expect((await exportBytes(user, res.data.project.id, 'bmad'))['agents.json']).toEqual(strToU8(after));
  });

  it('gives back the UTF-8 BOM of every file that had one, in both layouts', async () => {
    const user = await signedInClient('Bom');
    const files = { ...env.TEST_PACKAGES['two-workflows'] };
    for (const path of ['bmad.json', 'agents.json', 'workflows/ticket-triage/workflow.graph.json', 'workflows/ticket-triage/steps/closed.md', 'assets/policies/support-policy.md']) files[path] = `\uFEFF${files[path]}`;
    const res = await send(user, '/api/projects/import', zipOf(files));
    expect(res.status, JSON.stringify(res.error)).toBe(201);
    expect(await exportBytes(user, res.data.project.id, 'bmad')).toEqual(bytesOf(files));

    const method = { ...env.TEST_BMAD_METHOD.linear };
    const step = Object.keys(method).find((p) => p.includes('/steps/'))!;
    method[step] = `\uFEFF${method[step]}`;
    const imported = await send(user, '/api/projects/import', zipOf(method));
    expect(imported.status, JSON.stringify(imported.error)).toBe(201);
    expect(await exportBytes(user, imported.data.project.id, 'bmad-method')).toEqual(bytesOf(method));
  });
});

const BOM = [0xef, 0xbb, 0xbf];
const hasBom = (bytes: Uint8Array | undefined) => bytes !== undefined && BOM.every((b, i) => bytes[i] === b);
const withoutBom = (bytes: Uint8Array) => (hasBom(bytes) ? bytes.slice(3) : bytes);

describe('a BOM follows its file to wherever the export writes it', () => {
  it('through the change of layout, an ASCII asset name, a portable step name, an asset rename, and a BMAD-METHOD import exported as .bmad', async () => {
    const user = await signedInClient('BomMoves');
    const source = env.TEST_PACKAGES.branching;
    const files: Files = {};
    for (const [path, text] of Object.entries(crlf(source))) {
      const renamed = path.replace('steps/99-finish.md', 'steps/review:final.md').replace('assets/templates/study-plan.md', 'assets/templates/学习计划.md');
      files[renamed] = text.split('steps/99-finish.md').join('steps/review:final.md').split('templates/study-plan.md').join('templates/学习计划.md');
    }
    files['assets/notes/会议记录.md'] = '# 会议记录\r\n\r\n- 周一：确定课程分级。\r\n';
    for (const path of ['workflow.md', 'steps/02-decide-track.md', 'steps/review:final.md', 'assets/templates/学习计划.md', 'assets/notes/会议记录.md']) files[path] = `\uFEFF${files[path]}`;
    const res = await send(user, '/api/projects/import', zipOf(files));
    expect(res.status, JSON.stringify(res.error)).toBe(201);
    const base = `/api/projects/${res.data.project.id}`;
    const out = await exportBytes(user, res.data.project.id, 'bmad');
    const asset = (folder: string) => Object.keys(out).find((p) => new RegExp(`^assets/${folder}/asset-[0-9a-f]{8}\\.md$`, 'u').test(p))!;
    const [template, notes] = [asset('templates'), asset('notes')];
    const withBom = ['workflows/main/workflow.md', 'workflows/main/steps/02-decide-track.md', 'workflows/main/steps/review_final.md', template, notes];
    expect(Object.keys(out).filter((p) => hasBom(out[p])).sort()).toEqual(withBom.sort());
    expect(strFromU8(withoutBom(out['workflows/main/steps/review_final.md']!))).toBe(files['steps/review:final.md']!.slice(1));
    expect(out['workflows/main/steps/01-collect-background.md']).toEqual(strToU8(files['steps/01-collect-background.md']!));

    // Nothing links the notes, so the Builder may rename them without breaking the package.
    const renamed = await user.post(`${base}/assets/rename`, { from: notes, to: 'assets/notes/meeting-notes.md' });
    expect(renamed.status, JSON.stringify(renamed.error)).toBe(200);
    const after = await exportBytes(user, res.data.project.id, 'bmad');
    expect(hasBom(after['assets/notes/meeting-notes.md'])).toBe(true);
    expect(after['assets/notes/meeting-notes.md']).toEqual(strToU8(files['assets/notes/会议记录.md']!));

    const method = { ...env.TEST_BMAD_METHOD.linear };
    method['create-brief/steps/step-02-vision.md'] = `\uFEFF${method['create-brief/steps/step-02-vision.md']}`;
    const imported = await send(user, '/api/projects/import', zipOf(method));
    expect(imported.status, JSON.stringify(imported.error)).toBe(201);
    const asBmad = await exportBytes(user, imported.data.project.id, 'bmad');
    expect(Object.keys(asBmad).filter((p) => hasBom(asBmad[p]))).toEqual([expect.stringMatching(/^workflows\/[^/]+\/steps\/step-02-vision\.md$/u)]);
    // And the .bmad imported again still exports the BMAD-METHOD folders with it.
    const again = await send(user, '/api/projects/import', zipSync(asBmad), 'Brief, again');
    expect(again.status, JSON.stringify(again.error)).toBe(201);
    expect(await exportBytes(user, again.data.project.id, 'bmad-method')).toEqual(bytesOf(method));
  });
});

describe("an author's own bmad.json", () => {
  const reordered = (text: string) => JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(text) as object).reverse()), null, 4);

  it('is exported byte for byte while it says what the export would write (4-space indent, other key order, CRLF and a BOM), and rebuilt once it does not', async () => {
    const user = await signedInClient('HandMade');
    const plain = { ...env.TEST_PACKAGES['two-workflows'], 'bmad.json': reordered(env.TEST_PACKAGES['two-workflows']['bmad.json']!) };
    const lf = await send(user, '/api/projects/import', zipOf(plain));
    expect(lf.status, JSON.stringify(lf.error)).toBe(201);
    expect(await exportBytes(user, lf.data.project.id, 'bmad')).toEqual(bytesOf(plain));

    const files = crlf(plain);
    files['bmad.json'] = `\uFEFF${files['bmad.json']}`;
    files['agents.json'] = `\uFEFF${files['agents.json']}`;
    const res = await send(user, '/api/projects/import', zipOf(files, 'My Package/'), 'Hand-made, CRLF');
    expect(res.status, JSON.stringify(res.error)).toBe(201);
    // Imported under another name, the export also carries the project's (see "the project an export came from").
    const { 'assets/crewagent-project.json': project, ...out } = await exportBytes(user, res.data.project.id, 'bmad');
    expect(JSON.parse(strFromU8(project!)).name).toBe('Hand-made, CRLF');
    expect(out).toEqual(bytesOf(files));

    const bumped = await user.patch(`/api/projects/${res.data.project.id}`, { version: '2.5.0' });
    expect(bumped.status, JSON.stringify(bumped.error)).toBe(200);
    const manifest = (await exportBytes(user, res.data.project.id, 'bmad'))['bmad.json']!;
    expect(hasBom(manifest)).toBe(true);
    const text = strFromU8(withoutBom(manifest));
    const expected = { ...(JSON.parse(env.TEST_PACKAGES['two-workflows']['bmad.json']!) as object), version: '2.5.0' };
    expect(JSON.parse(text)).toEqual(expected);
    expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`.replaceAll('\n', '\r\n'));
  });
});

describe('the project an export came from', () => {
  it('imports again under its own name (Chinese) with its domain profile; a name the importer already has is a conflict with a suggestion', async () => {
    const owner = await signedInClient('NameOwner');
    const files = env.TEST_PACKAGES['two-workflows'];
    const res = await send(owner, '/api/projects/import', zipOf(files));
    expect(res.status, JSON.stringify(res.error)).toBe(201);
    const id = res.data.project.id as string;
    expect((await owner.patch(`/api/projects/${id}`, { name: '客服工作台' })).status).toBe(200);
    const profile = { industryDomain: '客户服务', targetUsers: '一线客服主管', painPoints: 'Tickets wait too long.', expectedOutcomes: '', qualityStyle: '简洁' };
    expect((await owner.put(`/api/projects/${id}/domain-profile`, profile)).status).toBe(200);
    const exported = await exportBytes(owner, id, 'bmad');
    // bmad.json keeps the package's own name: the schema allows no other field, so the project travels as an asset.
    expect(JSON.parse(strFromU8(exported['bmad.json']!)).name).toBe('support-desk');
    expect(Object.keys(exported).filter((p) => !(p in files))).toEqual(['assets/crewagent-project.json']);
    const zip = zipSync(exported);

    const colleague = await signedInClient('NameColleague');
    const copy = await send(colleague, '/api/projects/import', zip);
    expect(copy.status, JSON.stringify(copy.error)).toBe(201);
    expect(copy.data.project).toMatchObject({ name: '客服工作台', domainProfile: profile });
    const assets = (await colleague.get(`/api/projects/${copy.data.project.id}/assets`)).data.assets as Array<{ path: string }>;
    expect(assets.map((a) => a.path)).not.toContain('assets/crewagent-project.json');
    expect(await exportBytes(colleague, copy.data.project.id, 'bmad')).toEqual(exported);

    const clash = await send(owner, '/api/projects/import', zip);
    expect(clash.status).toBe(409);
    expect(clash.error).toMatchObject({ code: 'PKG_NAME_CONFLICT', suggestedName: '客服工作台 (2)' });
  });

  it('adds nothing to an export that bmad.json already says: an unchanged import exports back byte for byte', async () => {
    const user = await signedInClient('NameSame');
    const res = await send(user, '/api/projects/import', zipOf(env.TEST_PACKAGES['two-workflows']));
    expect(res.status).toBe(201);
    expect(res.data.project.name).toBe('support-desk');
    expect(await exportBytes(user, res.data.project.id, 'bmad')).toEqual(bytesOf(env.TEST_PACKAGES['two-workflows']));
  });
});
