import { env, exports } from 'cloudflare:workers';
import { strToU8, unzipSync, zipSync, strFromU8, type Zippable } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ORIGIN, signedInClient, type TestClient } from './client.ts';
import { PROJECT_FILE_PATH } from '../../shared/bmad/project-file.ts';

type Files = Record<string, string>;

function zip(files: Files, prefix = ''): Uint8Array {
  const entries: Zippable = {};
  for (const [path, text] of Object.entries(files)) entries[prefix + path] = strToU8(text);
  return zipSync(entries);
}

async function upload(client: TestClient, body: Uint8Array | string, name?: string) {
  const form = new FormData();
  form.set('file', new File([typeof body === 'string' ? body : new Uint8Array(body)], 'package.bmad', { type: 'application/zip' }));
  if (name) form.set('name', name);
  const res = await exports.default.fetch(`${ORIGIN}/api/projects/import`, {
    method: 'POST',
    headers: { origin: ORIGIN, cookie: client.cookie! },
    body: form,
  });
  const json = (await res.json()) as { data: any; error: any };
  return { status: res.status, ...json };
}

async function exportZip(client: TestClient, projectId: string) {
  const res = await exports.default.fetch(`${ORIGIN}/api/projects/${projectId}/export`, { headers: { cookie: client.cookie! } });
  return res;
}

async function rowCount(table: string) {
  return (await env.DB.prepare(`SELECT count(*) AS n FROM ${table}`).first<{ n: number }>())!.n;
}

async function snapshot(projectId: string) {
  const q = (sql: string) => env.DB.prepare(sql).bind(projectId).all().then((r) => r.results);
  return {
    workflows: await q('SELECT id, name, is_default, workflow_md, graph_json FROM workflows WHERE project_id = ? ORDER BY id'),
    steps: await q('SELECT workflow_id, node_id, path, markdown FROM workflow_steps WHERE project_id = ? ORDER BY workflow_id, node_id'),
    assets: await q('SELECT path, content, sha256 FROM assets WHERE project_id = ? ORDER BY path'),
    agents: await q('SELECT agents_json, version, description FROM projects WHERE id = ?'),
  };
}

describe('import', () => {
  it('imports the multi-workflow test package with its package ids, and exports it back byte for byte', async () => {
    const user = await signedInClient('Importer');
    const files = env.TEST_PACKAGES['two-workflows'];
    const res = await upload(user, zip(files));
    expect(res.status).toBe(201);
    expect(res.data.project).toMatchObject({ name: 'support-desk', version: '2.4.0', role: 'owner', workflowCount: 2 });
    expect(res.data.warnings).toEqual([]);
    const base = `/api/projects/${res.data.project.id}`;
    const workflows = await user.get(`${base}/workflows`);
    expect(workflows.data.workflows.map((w: { id: string }) => w.id)).toEqual(['ticket-triage', 'weekly-report']);
    expect((await user.get(`${base}/workflows/ticket-triage/steps/receive-ticket`)).status).toBe(200);
    expect((await user.get(`${base}/validation`)).data.report).toMatchObject({ valid: true, errors: [] });

    const exported = await exportZip(user, res.data.project.id);
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-disposition')).toContain('support-desk.bmad');
    const out = unzipSync(new Uint8Array(await exported.arrayBuffer()));
    const outFiles = Object.fromEntries(Object.entries(out).map(([p, b]) => [p, strFromU8(b)]));
    expect(Object.keys(outFiles).sort()).toEqual(Object.keys(files).sort());
    for (const [path, text] of Object.entries(files)) expect(outFiles[path], path).toBe(text);
  });

  it('imports the single-workflow test package as workflow "main" and round-trips import(export(p)) = p', async () => {
    const user = await signedInClient('Single');
    const first = await upload(user, zip(env.TEST_PACKAGES['branching'], 'course-placement/'));
    expect(first.status).toBe(201);
    const firstId = first.data.project.id;
    const wf = (await user.get(`/api/projects/${firstId}/workflows/main`)).data.workflow;
    expect(wf.steps.map((s: { path: string }) => s.path)).toContain('workflows/main/steps/01-collect-background.md');
    expect(JSON.parse(wf.graphJson).nodes[0].file).toBe('workflows/main/steps/01-collect-background.md');

    const exported = new Uint8Array(await (await exportZip(user, firstId)).arrayBuffer());
    const second = await upload(user, exported, 'placement again');
    expect(second.status).toBe(201);
    const a = await snapshot(firstId);
    const b = await snapshot(second.data.project.id);
    expect(b).toEqual(a);
  });

  it('imports the demo package that npm start seeds', async () => {
    const user = await signedInClient('Demo');
    const res = await upload(user, zip(env.TEST_PACKAGES.demo));
    expect(res.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data.project.workflowCount).toBe(3);
  });

  it('refuses a name conflict with a suggested name, writing nothing', async () => {
    const user = await signedInClient('Conflict');
    const files = env.TEST_PACKAGES['branching'];
    expect((await upload(user, zip(files))).status).toBe(201);
    const projects = await rowCount('projects');
    const again = await upload(user, zip(files));
    expect(again.status).toBe(409);
    expect(again.error).toMatchObject({ code: 'PKG_NAME_CONFLICT', suggestedName: 'course-placement (2)' });
    expect(await rowCount('projects')).toBe(projects);
    expect((await upload(user, zip(files), again.error.suggestedName)).status).toBe(201);
  });

  it('reports every validation problem with file and pointer and leaves no rows behind', async () => {
    const user = await signedInClient('Broken');
    const files = { ...env.TEST_PACKAGES['branching'] };
    const graph = JSON.parse(files['workflow.graph.json']!);
    graph.edges.push({ from: 'finish', to: 'nowhere', label: 'dangling' });
    graph.nodes[0].agentId = 'ghost';
    files['workflow.graph.json'] = JSON.stringify(graph);
    files['steps/01-collect-background.md'] = files['steps/01-collect-background.md']!.replace('## Goal', '## Aim');
    const before = await Promise.all(['projects', 'workflows', 'workflow_steps', 'assets', 'project_members'].map(rowCount));
    const res = await upload(user, zip(files));
    expect(res.status).toBe(422);
    expect(res.error.code).toBe('PKG_VALIDATION_FAILED');
    const codes = res.error.details.map((d: { code: string }) => d.code);
    expect(codes).toEqual(expect.arrayContaining(['GRAPH_EDGE_UNKNOWN_NODE', 'AGENT_NOT_FOUND', 'STEP_MISSING_GOAL']));
    const dangling = res.error.details.find((d: { code: string }) => d.code === 'GRAPH_EDGE_UNKNOWN_NODE');
    expect(dangling).toMatchObject({ path: 'workflow.graph.json', pointer: '/edges/6/to' });
    expect(await Promise.all(['projects', 'workflows', 'workflow_steps', 'assets', 'project_members'].map(rowCount))).toEqual(before);
  });

  it('imports a package zipped by Finder or Explorer: the wrapping folder and what the system left beside the files are not part of it', async () => {
    const user = await signedInClient('Desktop');
    const good = env.TEST_PACKAGES['branching'];
    const entries: Zippable = Object.fromEntries(Object.entries(good).map(([p, t]) => [`My Package/${p}`, strToU8(t)]));
    // AppleDouble resource forks and Finder's and Explorer's caches: binary, so they would be refused as files.
    const binary = new Uint8Array([0x00, 0x05, 0x16, 0x07, 0xff, 0xfe, 0x00, 0x00]);
    entries['__MACOSX/My Package/._bmad.json'] = binary;
    entries['My Package/.DS_Store'] = binary;
    entries['My Package/assets/Thumbs.db'] = binary;
    entries['My Package/desktop.ini'] = strToU8('[.ShellClassInfo]\r\n');
    const res = await upload(user, zipSync(entries));
    expect(res.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data.warnings).toEqual([]);
    const imported = await snapshot(res.data.project.id);
    expect(imported.assets.map((a: any) => a.path)).toEqual(Object.keys(good).filter((p) => p.startsWith('assets/')).sort());
  });

  it('refuses unsafe and broken zips with PKG_* codes', async () => {
    const user = await signedInClient('Unsafe');
    const good = env.TEST_PACKAGES['branching'];
    const cases: Array<[string, Uint8Array | string, string]> = [
      ['not a zip', 'hello, I am text', 'PKG_INVALID_ZIP'],
      ['traversal', zip({ ...good, '../evil.md': 'x' }), 'PKG_INVALID_ZIP'],
      ['absolute', zip({ ...good, '/etc/passwd': 'x' }), 'PKG_INVALID_ZIP'],
      ['backslash', zip({ ...good, 'assets\\x.md': 'x' }), 'PKG_INVALID_ZIP'],
      ['drive letter', zip({ ...good, 'C:/x.md': 'x' }), 'PKG_INVALID_ZIP'],
      ['no manifest', zip({ 'README.md': 'hi' }), 'PKG_INVALID_FORMAT'],
    ];
    for (const [label, body, code] of cases) {
      const res = await upload(user, body);
      expect(res.error?.code, label).toBe(code);
    }
    const latin1 = zipSync({ ...Object.fromEntries(Object.entries(good).map(([p, t]) => [p, strToU8(t)])), 'assets/notes.md': new Uint8Array([0x63, 0x61, 0x66, 0xe9]) });
    const res = await upload(user, latin1);
    expect(res.error).toMatchObject({ code: 'PKG_INVALID_FORMAT', details: [{ path: 'assets/notes.md' }] });
    // A bomb: 9 MiB of zeros compresses to about 9 KB, far past the ratio limit.
    const bomb = zipSync({ ...Object.fromEntries(Object.entries(good).map(([p, t]) => [p, strToU8(t)])), 'assets/zeros.txt': new Uint8Array(9 * 1024 * 1024) });
    expect((await upload(user, bomb)).error?.code).toBe('PKG_INVALID_ZIP');
    const notMultipart = await user.post('/api/projects/import', { file: 'x' });
    expect(notMultipart.status).toBe(415);
    expect((await user.get('/api/projects')).data.projects).toEqual([]);
  });
});

describe('export and validation', () => {
  it('refuses to export a package with errors and lists them; viewers can export a valid one', async () => {
    const { projectWithOwner } = await import('./client.ts');
    const { owner, base, projectId, member } = await projectWithOwner();
    await owner.post(`${base}/workflows`, { id: 'w', name: 'W' });
    await owner.put(`${base}/agents/helper`, {
      agent: { metadata: { name: 'H', title: 'Helper', icon: 'H' }, persona: { role: 'r', identity: 'i', communication_style: 'c', principles: 'p' } },
    });
    const viewer = await member('viewer');
    expect((await exportZip(viewer, projectId)).status).toBe(200);
    const saved = await owner.put(`${base}/workflows/w/steps/start`, { markdown: '---\nschemaVersion: "1.1"\nnodeId: "start"\ntype: "step"\n---\n# Start\n' });
    expect(saved.status).toBe(200);
    expect(saved.data.issues.map((i: { code: string }) => i.code)).toEqual(expect.arrayContaining(['STEP_MISSING_GOAL', 'STEP_MISSING_INSTRUCTIONS']));
    const refused = await exportZip(owner, projectId);
    expect(refused.status).toBe(422);
    const body = (await refused.json()) as { error: { code: string; details: Array<{ path: string }> } };
    expect(body.error.code).toBe('PKG_VALIDATION_FAILED');
    expect(body.error.details[0]!.path).toBe('workflows/w/steps/start.md');
    const report = await owner.get(`${base}/validation`);
    expect(report.data.report.valid).toBe(false);
  });
});

describe('names Windows cannot unpack', () => {
  it('exports a step id and a workflow id with ":" under portable names, ids kept; import → export → import round-trips', async () => {
    const user = await signedInClient('Portable');
    // (A workflow id that sorts after ticket-triage: the stored order of workflows imported in one batch is not the manifest's.)
    const pairs: Array<[string, string]> = [['weekly-report', 'weekly:report'], ['escalate-ticket', 'escalate:ticket']];
    const sub = (text: string) => pairs.reduce((acc, [from, to]) => acc.split(from).join(to), text);
    const files = Object.fromEntries(Object.entries(env.TEST_PACKAGES['two-workflows'] as Files).map(([p, t]) => [sub(p), sub(t)]));
    const first = await upload(user, zip(files));
    expect(first.status).toBe(201);
    expect(first.data.warnings.map((w: { code: string }) => w.code).sort()).toEqual(['STEP_FILE_NOT_PORTABLE', 'WORKFLOW_FOLDER_NOT_PORTABLE']);

    const unzipped = async (projectId: string) => {
      const res = await exportZip(user, projectId);
      expect(res.status).toBe(200);
      const warnings = JSON.parse(decodeURIComponent(res.headers.get('x-bmad-warnings-json')!)) as Array<{ code: string; message: string }>;
      const entries = Object.entries(unzipSync(new Uint8Array(await res.arrayBuffer()))).map(([p, b]) => [p, strFromU8(b)] as const);
      return { warnings, files: new Map(entries.filter(([p]) => p !== 'WARNINGS.md')), bytes: entries };
    };
    const once = await unzipped(first.data.project.id);
    expect([...once.files.keys()].filter((p) => /[:*?"<>|]/u.test(p))).toEqual([]);
    expect([...once.files.keys()]).toEqual(expect.arrayContaining(['workflows/ticket-triage/steps/escalate_ticket.md', 'workflows/weekly_report/workflow.md']));
    expect(once.warnings.find((w) => w.code === 'STEP_FILE_NOT_PORTABLE')!.message).toMatch(/^Step "escalate:ticket" is stored as .*escalate:ticket\.md, a file name Windows cannot unpack/u);

    const zipped: Zippable = {};
    for (const [path, text] of once.bytes) zipped[path] = strToU8(text);
    const second = await upload(user, zipSync(zipped), 'desk again');
    expect(second.status).toBe(201);
    const base = `/api/projects/${second.data.project.id}`;
    expect((await user.get(`${base}/workflows`)).data.workflows.map((w: { id: string }) => w.id).sort()).toEqual(['ticket-triage', 'weekly:report']);
    const step = await user.get(`${base}/workflows/ticket-triage/steps/${encodeURIComponent('escalate:ticket')}`);
    expect(step.status).toBe(200);
    expect(step.data.step.markdown).toBe(files['workflows/ticket-triage/steps/escalate:ticket.md']);
    // The upload unpacks anywhere; the stored project names a workflow's folder after its id, so its validation still says so.
    expect(second.data.warnings).toEqual([]);
    const report = (await user.get(`${base}/validation`)).data.report;
    expect(report.warnings.map((w: { code: string }) => w.code)).toEqual(['WORKFLOW_FOLDER_NOT_PORTABLE']);
    const twice = await unzipped(second.data.project.id);
    // Saved under another name, the export also says the project's name (shared/bmad/project-file.ts).
    expect(JSON.parse(twice.files.get(PROJECT_FILE_PATH)!)).toMatchObject({ name: 'desk again' });
    twice.files.delete(PROJECT_FILE_PATH);
    expect(twice.files).toEqual(once.files);
  });

  it('keeps the folder of a workflow whose id has ":" named after the id (its warning stays, see stored-package.ts), and saves its steps in the Builder', async () => {
    const user = await signedInClient('ColonFolder');
    const pairs: Array<[string, string]> = [['weekly-report', 'weekly:report'], ['escalate-ticket', 'escalate:ticket']];
    const sub = (text: string) => pairs.reduce((acc, [from, to]) => acc.split(from).join(to), text);
    const files = Object.fromEntries(Object.entries(env.TEST_PACKAGES['two-workflows'] as Files).map(([p, t]) => [sub(p), sub(t)]));
    const imported = await upload(user, zip(files));
    expect(imported.status).toBe(201);
    const base = `/api/projects/${imported.data.project.id}`;
    const weekly = `${base}/workflows/${encodeURIComponent('weekly:report')}`;
    const stored = (await user.get(weekly)).data.workflow;
    expect(stored.steps.every((s: { path: string }) => s.path.startsWith('workflows/weekly:report/steps/'))).toBe(true);

    // A stored step keeps its file, ":" and all: in the id-named folder, and a file named after its id.
    const first = stored.steps[0] as { nodeId: string; path: string; markdown: string };
    const edited = `${first.markdown}\nOne more line.\n`;
    const saved = await user.put(`${weekly}/steps/${encodeURIComponent(first.nodeId)}`, { markdown: edited });
    expect(saved.status).toBe(200);
    expect((await user.get(`${weekly}/steps/${encodeURIComponent(first.nodeId)}`)).data.step).toMatchObject({ path: first.path, markdown: edited });
    const escalate = `${base}/workflows/ticket-triage/steps/${encodeURIComponent('escalate:ticket')}`;
    const escalateMd = (await user.get(escalate)).data.step.markdown as string;
    expect((await user.put(escalate, { markdown: `${escalateMd}\nAgain.\n` })).status).toBe(200);
    expect((await user.get(escalate)).data.step.path).toBe('workflows/ticket-triage/steps/escalate:ticket.md');
    // A new step goes into the workflow's folder under a portable file name.
    const added = await user.put(`${weekly}/steps/${encodeURIComponent('check:sla')}`, { markdown: '---\nschemaVersion: "1.1"\nnodeId: "check:sla"\ntype: step\n---\n# Check\n' });
    expect(added.status).toBe(200);
    expect((await user.get(`${weekly}/steps/${encodeURIComponent('check:sla')}`)).data.step.path).toBe('workflows/weekly:report/steps/check_sla.md');
    // A path of its own choosing is still plain ASCII after that folder.
    const odd = await user.put(`${weekly}/steps/odd`, { markdown: '---\nschemaVersion: "1.1"\nnodeId: odd\ntype: step\n---\n# Odd\n', path: 'workflows/weekly:report/steps/o:dd.md' });
    expect(odd.error?.code).toBe('VALIDATION_FAILED');

    const warnings = (await user.get(`${base}/validation`)).data.report.warnings.filter((w: { code: string }) => w.code.endsWith('_NOT_PORTABLE'));
    expect(warnings.map((w: { code: string; params: Record<string, string> }) => [w.code, w.params.to])).toEqual([
      ['STEP_FILE_NOT_PORTABLE', 'workflows/ticket-triage/steps/escalate_ticket.md'],
      ['WORKFLOW_FOLDER_NOT_PORTABLE', 'workflows/weekly_report/'],
    ]);
  });
});

describe('workflow order', () => {
  /** A one-batch import often writes every workflow row in the same millisecond; this makes it always so. */
  const sameCreatedAt = (projectId: string) =>
    env.DB.prepare(`UPDATE workflows SET created_at = '2026-01-01T00:00:00.000Z' WHERE project_id = ?`).bind(projectId).run();
  const manifestOrder = (files: Map<string, string> | Files) => {
    const text = files instanceof Map ? files.get('bmad.json')! : files['bmad.json']!;
    return (JSON.parse(text) as { workflows: Array<{ id: string }> }).workflows.map((w) => w.id);
  };
  const exported = async (user: TestClient, projectId: string) => {
    const res = await exportZip(user, projectId);
    expect(res.status).toBe(200);
    return new Map(Object.entries(unzipSync(new Uint8Array(await res.arrayBuffer()))).map(([p, b]) => [p, strFromU8(b)]));
  };

  it("keeps the manifest's workflow order through export → import → export when ids sort otherwise; a new workflow goes last", async () => {
    const user = await signedInClient('Order');
    // "report" sorts before "ticket-triage", which the manifest lists first.
    const sub = (text: string) => text.split('weekly-report').join('report');
    const files: Files = Object.fromEntries(Object.entries(env.TEST_PACKAGES['two-workflows'] as Files).map(([p, t]) => [sub(p), sub(t)]));
    expect(manifestOrder(files)).toEqual(['ticket-triage', 'report']);
    const first = await upload(user, zip(files));
    expect(first.status).toBe(201);
    await sameCreatedAt(first.data.project.id);
    const once = await exported(user, first.data.project.id);
    expect(manifestOrder(once)).toEqual(['ticket-triage', 'report']);
    for (const [path, text] of Object.entries(files)) expect(once.get(path), path).toBe(text);

    const zipped: Zippable = {};
    for (const [path, text] of once) if (path !== 'WARNINGS.md') zipped[path] = strToU8(text);
    const second = await upload(user, zipSync(zipped), 'desk twice');
    expect(second.status).toBe(201);
    await sameCreatedAt(second.data.project.id);
    const twice = await exported(user, second.data.project.id);
    expect(manifestOrder(twice)).toEqual(['ticket-triage', 'report']);
    expect(JSON.parse(twice.get(PROJECT_FILE_PATH)!)).toMatchObject({ name: 'desk twice' });
    twice.delete(PROJECT_FILE_PATH);
    expect(twice).toEqual(once);

    const base = `/api/projects/${second.data.project.id}`;
    expect((await user.post(`${base}/workflows`, { id: 'aaa-new', name: 'New' })).status).toBe(201);
    await sameCreatedAt(second.data.project.id);
    expect((await user.get(`${base}/workflows`)).data.workflows.map((w: { id: string }) => w.id)).toEqual(['ticket-triage', 'report', 'aaa-new']);
    expect(manifestOrder(await exported(user, second.data.project.id))).toEqual(['ticket-triage', 'report', 'aaa-new']);
  });
});

describe('large imports', () => {
  /** A valid package far past one D1 statement (100 KB SQL, 100 bound parameters). */
  function largePackage(workflowCount: number, stepsPerWorkflow: number): Files {
    const body = `${'Check the vendor file line by line and record every finding. '.repeat(60)}\n`;
    const files: Files = {
      'agents.json': JSON.stringify({
        schemaVersion: '1.1',
        agents: [{ id: 'a', metadata: { name: 'A', title: 'Agent', icon: 'A' }, persona: { role: 'r', identity: 'i', communication_style: 'c', principles: 'p' } }],
      }),
    };
    const workflows = [];
    for (let w = 0; w < workflowCount; w++) {
      const id = `wf-${w}`;
      const nodes = [];
      const edges = [];
      for (let s = 0; s < stepsPerWorkflow; s++) {
        const nodeId = s === stepsPerWorkflow - 1 ? 'finish' : `s-${s}`;
        const type = s === stepsPerWorkflow - 1 ? 'end' : 'step';
        const file = `workflows/${id}/steps/${nodeId}.md`;
        nodes.push({ id: nodeId, type, file, agentId: 'a' });
        if (s > 0) edges.push({ from: nodes[s - 1]!.id, to: nodeId, label: 'next' });
        files[file] = `---\nschemaVersion: "1.1"\nnodeId: "${nodeId}"\ntype: "${type}"\nagentId: "a"\n---\n# ${nodeId}\n\n## Goal\n\n${body}\n## Instructions\n\n${body}`;
      }
      files[`workflows/${id}/workflow.graph.json`] = JSON.stringify({ schemaVersion: '1.1', entryNodeId: 's-0', nodes, edges });
      files[`workflows/${id}/workflow.md`] = `---\nschemaVersion: "1.1"\nworkflowType: "${id}"\ncurrentNodeId: "s-0"\nstepsCompleted: []\n---\n# ${id}\n`;
      workflows.push({ id, workflow: `workflows/${id}/workflow.md`, graph: `workflows/${id}/workflow.graph.json` });
    }
    files['bmad.json'] = JSON.stringify({
      schemaVersion: '1.1',
      name: 'large',
      version: '1.0.0',
      entry: { workflow: workflows[0]!.workflow, graph: workflows[0]!.graph, agents: 'agents.json' },
      workflows,
    });
    return files;
  }

  it('imports a multi-megabyte package in one all-or-nothing batch', async () => {
    const user = await signedInClient('Large');
    const files = largePackage(4, 80);
    const bytes = Object.values(files).reduce((n, t) => n + t.length, 0);
    expect(bytes).toBeGreaterThan(2_000_000);
    const res = await upload(user, zip(files));
    expect(res.status, JSON.stringify(res.error)).toBe(201);
    const steps = await env.DB.prepare('SELECT count(*) AS n FROM workflow_steps WHERE project_id = ?').bind(res.data.project.id).first<{ n: number }>();
    expect(steps!.n).toBe(320);
  });

  it('leaves no rows behind when the last statement of a large import fails', async () => {
    const user = await signedInClient('Rollback');
    const files = largePackage(3, 60);
    files['assets/last.md'] = '# Last';
    await env.DB.prepare(
      `CREATE TRIGGER fail_last_asset BEFORE INSERT ON assets WHEN NEW.path = 'assets/last.md'
       BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
    ).run();
    const before = await Promise.all(['projects', 'workflows', 'workflow_steps', 'assets', 'project_members'].map(rowCount));
    const res = await upload(user, zip(files));
    expect(res.status).toBe(500);
    expect(await Promise.all(['projects', 'workflows', 'workflow_steps', 'assets', 'project_members'].map(rowCount))).toEqual(before);
    await env.DB.prepare('DROP TRIGGER fail_last_asset').run();
  });
});
