/**
 * Importing BMAD-METHOD folders through the real routes: the preview derives and writes nothing,
 * the confirm writes everything in one batch, hostile uploads give warnings or a refusal with
 * every reason and write nothing, and the export back to that layout is byte for byte.
 */
import { env, exports } from 'cloudflare:workers';
import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import { describe, expect, it } from 'vitest';
import { hostileBmadUploads } from '../fixtures/bmad-method/hostile.ts';
import { ORIGIN, signedInClient, type TestClient } from './client.ts';
import { buildZip, deflated } from './zip-builder.ts';

type Files = Record<string, string>;

function zipOf(files: Files | ReadonlyMap<string, string>, extra: Record<string, Uint8Array> = {}): Uint8Array {
  const entries: Zippable = {};
  for (const [path, text] of files instanceof Map ? files : Object.entries(files)) entries[path] = strToU8(text);
  return zipSync({ ...entries, ...extra });
}

async function send(client: TestClient, path: string, zip: Uint8Array, name?: string) {
  const form = new FormData();
  form.set('file', new File([new Uint8Array(zip)], 'bmad-folder.zip', { type: 'application/zip' }));
  if (name) form.set('name', name);
  const res = await exports.default.fetch(`${ORIGIN}${path}`, { method: 'POST', headers: { origin: ORIGIN, cookie: client.cookie! }, body: form });
  return { status: res.status, ...((await res.json()) as { data: any; error: any }) };
}

async function counts() {
  const n = async (table: string) => (await env.DB.prepare(`SELECT count(*) AS n FROM ${table}`).first<{ n: number }>())!.n;
  return { projects: await n('projects'), workflows: await n('workflows'), steps: await n('workflow_steps'), assets: await n('assets'), history: await n('revision_history') };
}

async function exportFiles(client: TestClient, projectId: string, layout: string) {
  const res = await exports.default.fetch(`${ORIGIN}/api/projects/${projectId}/export?layout=${layout}`, { headers: { cookie: client.cookie! } });
  expect(res.status).toBe(200);
  const files = Object.fromEntries(Object.entries(unzipSync(new Uint8Array(await res.arrayBuffer()))).map(([p, b]) => [p, strFromU8(b)]));
  return { files, headers: res.headers };
}

const edges = (graph: { edges: Array<{ from: string; to: string; label: string }> }) => graph.edges.map((e) => `${e.from} -> ${e.to} [${e.label}]`);

describe('BMAD-METHOD import', () => {
  it('previews a folder zip with the derived graph, what became what and every warning, writing nothing', async () => {
    const user = await signedInClient('Previewer');
    const before = await counts();
    const res = await send(user, '/api/projects/import/preview', zipOf(env.TEST_BMAD_METHOD.continuation));
    expect(res.status).toBe(200);
    const preview = res.data.preview;
    expect(preview).toMatchObject({ layout: 'bmad-method', valid: true, errors: [] });
    expect(preview.workflows.map((w: { id: string; source: string }) => [w.id, w.source])).toEqual([['research', 'research/workflow.md']]);
    expect(edges(preview.workflows[0].graph)).toEqual([
      'step-01-init -> step-01b-continue [the report exists and has stepsCompleted]',
      'step-01-init -> step-02-scope [next]',
      'step-01b-continue -> step-02-scope [lastStep = 1]',
      'step-01b-continue -> step-03-complete [lastStep = 2]',
      'step-02-scope -> step-03-complete [[C] Continue]',
    ]);
    expect(preview.workflows[0].steps).toContainEqual({ file: 'workflows/research/steps/step-01b-continue.md', source: 'research/steps/step-01b-continue.md', nodeId: 'step-01b-continue' });
    expect(preview.warnings.map((w: { code: string }) => w.code)).toContain('BMAD_AGENT_PLACEHOLDER');
    expect(await counts()).toEqual(before);
  });

  it('confirms by re-deriving the same zip and writes it all in one batch; the workflow opens like any other', async () => {
    const user = await signedInClient('Importer');
    const zip = zipOf(env.TEST_BMAD_METHOD.module);
    const preview = (await send(user, '/api/projects/import/preview', zip)).data.preview;
    const res = await send(user, '/api/projects/import', zip, 'Demo module');
    expect(res.status).toBe(201);
    expect(res.data).toMatchObject({ layout: 'bmad-method', project: { name: 'Demo module', workflowCount: 2 } });
    const base = `/api/projects/${res.data.project.id}`;
    const list = (await user.get(`${base}/workflows`)).data.workflows;
    expect(list.map((w: { id: string; stepCount: number }) => [w.id, w.stepCount])).toEqual([['brief', 2], ['review', 4]]);
    const review = (await user.get(`${base}/workflows/review`)).data.workflow;
    expect(JSON.parse(review.graphJson)).toEqual(preview.workflows[1].graph);
    expect((await user.get(`${base}/agents`)).data.agents).toEqual([{ id: 'analyst', name: 'Mira', title: 'Business Analyst' }]);
    expect((await user.get(`${base}/assets`)).data.assets.map((a: { path: string }) => a.path)).toEqual([
      'assets/demo/agents/analyst.agent.yaml',
      'assets/demo/module.yaml',
      'assets/demo/workflows/review/data/checklist.csv',
    ]);
    expect((await user.get(`${base}/validation`)).data.report).toMatchObject({ valid: true, errors: [] });
  });

  it('exports an unchanged import byte for byte, and a changed step as the only changed file', async () => {
    const user = await signedInClient('Exporter');
    const original = env.TEST_BMAD_METHOD.linear;
    const res = await send(user, '/api/projects/import', zipOf(original));
    expect(res.status).toBe(201);
    const projectId = res.data.project.id as string;
    const first = await exportFiles(user, projectId, 'bmad-method');
    const { [`WARNINGS.md`]: warningsMd, ...files } = first.files;
    expect(files).toEqual(original);
    // Warnings beside the file (header) and in it (WARNINGS.md), not only their count.
    const headerWarnings = JSON.parse(decodeURIComponent(first.headers.get('x-bmad-warnings-json')!)) as Array<{ code: string; path: string }>;
    expect(headerWarnings.map((w) => w.code)).toContain('BMAD_EXPORT_NOT_WRITTEN');
    expect(Number(first.headers.get('x-bmad-warnings'))).toBe(headerWarnings.length);
    for (const w of headerWarnings) expect(warningsMd).toContain(`**${w.code}** \`${w.path}\``);

    const step = (await user.get(`/api/projects/${projectId}/workflows/create-brief/steps/step-02-vision`)).data.step;
    const edited = step.markdown.replace('2. Draft the vision and show it.', '2. Draft the vision, then read it back.');
    expect((await user.put(`/api/projects/${projectId}/workflows/create-brief/steps/step-02-vision`, { markdown: edited })).status).toBe(200);
    const second = (await exportFiles(user, projectId, 'bmad-method')).files;
    const changed = Object.keys(original).filter((p) => second[p] !== original[p]);
    expect(changed).toEqual(['create-brief/steps/step-02-vision.md']);
    expect(second['create-brief/steps/step-02-vision.md']).toBe(original['create-brief/steps/step-02-vision.md']!.replace('2. Draft the vision and show it.', '2. Draft the vision, then read it back.'));
  });

  it('older shapes: steps inline in workflow.md, a legacy workflow.yaml, step names outside ASCII; imported, and exported back byte for byte with an edit in its place', async () => {
    const user = await signedInClient('Legacy');
    const original: Files = {
      'tidy/workflow.md': '---\nname: tidy\n---\n\n# Tidy\n\n<workflow>\n<step n="1" goal="Collect">\nList the notes.\n</step>\n<step n="2" goal="Index">\nWrite the index.\n</step>\n</workflow>\n',
      'weekly/workflow.yaml': "name: weekly\ndescription: Weekly report.\ninstructions: '{installed_path}/instructions.md'\n",
      'weekly/instructions.md': '# Weekly\n\n<step n="1" goal="Gather">\nAsk what happened.\n</step>\n',
      'notes/workflow.md': '---\nname: notes\n---\n\nLoad `./steps/步骤-01.md`\n',
      'notes/steps/步骤-01.md': '# 第一步\n\n然后读取 `./步骤-02.md`\n',
      'notes/steps/步骤-02.md': '# 第二步\n',
    };
    const preview = (await send(user, '/api/projects/import/preview', zipOf(original))).data.preview;
    expect(preview).toMatchObject({ layout: 'bmad-method', valid: true, errors: [] });
    expect(preview.workflows.map((w: { id: string; graph: { edges: unknown[] } }) => [w.id, w.graph.edges.length])).toEqual([['notes', 1], ['tidy', 1], ['weekly', 0]]);
    expect(preview.warnings.map((w: { code: string }) => w.code)).toContain('BMAD_STEP_RENAMED');
    const res = await send(user, '/api/projects/import', zipOf(original));
    expect(res.status).toBe(201);
    const projectId = res.data.project.id as string;
    const { 'WARNINGS.md': _warnings, ...files } = (await exportFiles(user, projectId, 'bmad-method')).files;
    expect(files).toEqual(original);
    const step = (await user.get(`/api/projects/${projectId}/workflows/tidy/steps/step-2`)).data.step;
    expect((await user.put(`/api/projects/${projectId}/workflows/tidy/steps/step-2`, { markdown: step.markdown.replace('Write the index.', 'Write the index, newest first.') })).status).toBe(200);
    const edited = (await exportFiles(user, projectId, 'bmad-method')).files;
    expect(edited['tidy/workflow.md']).toBe(original['tidy/workflow.md']!.replace('Write the index.', 'Write the index, newest first.'));
    expect(Object.keys(edited).filter((p) => p.startsWith('tidy/'))).toEqual(['tidy/workflow.md']);
  });

  it('exports the .bmad layout with its warnings listed in the zip and the header too', async () => {
    const user = await signedInClient('Packer');
    const res = await send(user, '/api/projects/import', zipOf(env.TEST_BMAD_METHOD.branches));
    const { files, headers } = await exportFiles(user, res.data.project.id, 'bmad');
    expect(Object.keys(files)).toContain('bmad.json');
    const warnings = JSON.parse(decodeURIComponent(headers.get('x-bmad-warnings-json')!)) as Array<{ code: string; message: string }>;
    expect(warnings.length).toBeGreaterThan(0);
    for (const w of warnings) expect(files['WARNINGS.md']).toContain(w.message);
  });
});

describe('hostile BMAD-METHOD uploads', () => {
  const hostile = hostileBmadUploads(new Map(Object.entries(env.TEST_BMAD_METHOD.linear)));

  it('a link cycle: the preview names the loop, the confirm refuses with every reason and writes nothing', async () => {
    const user = await signedInClient('Cyclist');
    const zip = zipOf(hostile.cycle!.files);
    const preview = (await send(user, '/api/projects/import/preview', zip)).data.preview;
    expect(preview.valid).toBe(false);
    expect(preview.errors.map((e: { code: string }) => e.code)).toEqual(['GRAPH_CYCLE_MISSING_DECISION']);
    const before = await counts();
    const res = await send(user, '/api/projects/import', zip);
    expect(res.status).toBe(422);
    expect(res.error.details.map((d: { message: string }) => d.message)).toEqual([expect.stringMatching(/"step-02-vision", "step-03-complete" form a loop/)]);
    expect(await counts()).toEqual(before);
  });

  it('a missing step file, an orphan, a binary file and a link out of the folder: imported with a warning for each', async () => {
    const user = await signedInClient('Warned');
    const files = new Map(hostile.missingStep!.files);
    files.set('create-brief/steps/step-09-orphan.md', '# Nobody links me\n');
    files.set('create-brief/steps/step-01-init.md', `${files.get('create-brief/steps/step-01-init.md')}\nThen load \`../../../../etc/step-x.md\`.\n`);
    const zip = zipOf(files, { 'create-brief/data/logo.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe]) });
    const preview = (await send(user, '/api/projects/import/preview', zip)).data.preview;
    const warned = preview.warnings.map((w: { code: string; path: string }) => `${w.code} ${w.path}`);
    expect(warned).toEqual(
      expect.arrayContaining([
        'BMAD_LINK_MISSING create-brief/steps/step-02-vision.md',
        'BMAD_STEP_ORPHAN create-brief/steps/step-09-orphan.md',
        'BMAD_FILE_SKIPPED create-brief/data/logo.png',
        'BMAD_LINK_OUTSIDE create-brief/steps/step-01-init.md',
      ]),
    );
    expect(preview.valid).toBe(true);
    expect((await send(user, '/api/projects/import', zip)).status).toBe(201);
  });

  it('2,000 step files: refused with the count, nothing written', async () => {
    const user = await signedInClient('Flooded');
    const zip = zipOf(hostile.twoThousandSteps!.files);
    const before = await counts();
    const preview = (await send(user, '/api/projects/import/preview', zip)).data.preview;
    expect(preview).toMatchObject({ valid: false, workflows: [] });
    const res = await send(user, '/api/projects/import', zip);
    expect(res.status).toBe(422);
    expect(res.error.details).toEqual([expect.objectContaining({ message: expect.stringMatching(/has 2003 step files; at most 500/) })]);
    expect(await counts()).toEqual(before);
  });

  it('zip entries with ..: refused with every unsafe entry named, in the preview as in the import', async () => {
    const user = await signedInClient('Climber');
    const entries = Object.entries(env.TEST_BMAD_METHOD.linear).map(([p, t]) => deflated(p, t));
    const zip = buildZip([...entries, deflated('../outside.md', '# x'), deflated('create-brief/../../etc/step-02.md', '# y')]);
    const before = await counts();
    for (const path of ['/api/projects/import/preview', '/api/projects/import']) {
      const res = await send(user, path, zip);
      expect(res.status).toBe(400);
      expect(res.error.code).toBe('PKG_INVALID_ZIP');
      expect(res.error.details.map((d: { path: string }) => d.path)).toEqual(['../outside.md', 'create-brief/../../etc/step-02.md']);
    }
    expect(await counts()).toEqual(before);
  });
});
