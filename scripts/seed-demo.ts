/**
 * Seeds the demo account and the demo project (scripts/demo-package/, a multi-workflow .bmad
 * package) through the product's own API, so the demo data passes the same checks as any
 * edit. Idempotent: an existing demo project is left alone.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { SeedClient } from './lib/api-client.ts';

export const DEMO_USER = { email: 'demo@crewagent.local', password: 'demo-password-123', name: 'Demo Author' };
export const DEMO_VIEWER = { email: 'viewer@crewagent.local', password: 'viewer-password-123', name: 'Vera Viewer' };
const PACKAGE_DIR = new URL('./demo-package/', import.meta.url).pathname;

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(PACKAGE_DIR, join(e.parentPath, e.name)))
    .sort();
}

const text = (path: string) => readFile(join(PACKAGE_DIR, path), 'utf8');

async function signIn(client: SeedClient, user: typeof DEMO_USER): Promise<void> {
  const login = await client.call('POST', '/api/auth/login', { email: user.email, password: user.password });
  if (login.status === 200) return;
  await client.must('POST', '/api/auth/register', user);
}

interface Manifest {
  name: string;
  version: string;
  description?: string;
  workflows?: Array<{ id: string; displayName?: string; workflow: string; graph: string }>;
}

export async function seedDemo(baseUrl: string, options: { scriptedModelUrl?: string } = {}): Promise<{ projectId: string; created: boolean }> {
  const viewer = new SeedClient(baseUrl);
  await signIn(viewer, DEMO_VIEWER);
  const client = new SeedClient(baseUrl);
  await signIn(client, DEMO_USER);

  if (options.scriptedModelUrl) {
    // The local demo talks to the scripted model server started beside wrangler (no internet needed).
    const res = await client.call('PUT', '/api/users/me/llm-profile', {
      provider: 'openai-compatible',
      preset: 'scripted-demo',
      baseUrl: options.scriptedModelUrl,
      model: 'scripted-demo',
      apiKey: 'sk-local-demo-key',
      timeoutSeconds: 60,
      contextWindow: 128000,
    });
    if (res.status === 404) console.log('  (the LLM profile API is not available yet; skipping the demo model profile)');
    else if (res.status >= 400) throw new Error(`LLM profile: ${res.error?.code} ${res.error?.message}`);
  }

  const manifest = JSON.parse(await text('bmad.json')) as Manifest;
  const projectName = 'Vendor onboarding (demo)';
  const { projects } = await client.must<{ projects: Array<{ id: string; name: string }> }>('GET', '/api/projects');
  const existing = projects.find((p) => p.name === projectName);
  if (existing) return { projectId: existing.id, created: false };

  const { project } = await client.must('POST', '/api/projects', {
    name: projectName,
    description: manifest.description ?? '',
  });
  const base = `/api/projects/${project.id}`;
  await client.must('PATCH', base, { version: manifest.version });
  await client.must('PUT', `${base}/domain-profile`, {
    industryDomain: 'Procurement and vendor risk management',
    targetUsers: 'Procurement analysts, risk officers, legal and finance reviewers',
    painPoints: 'Onboarding takes weeks, documents go missing, risk checks differ between reviewers',
    expectedOutcomes: 'Every vendor onboarded with a complete, auditable risk file in days, not weeks',
    qualityStyle: 'Precise, checklist-driven, auditable; cite the policy section behind every decision',
  });
  await client.must('POST', `${base}/members`, { email: DEMO_VIEWER.email, role: 'viewer' });

  const agents = JSON.parse(await text('agents.json')) as { agents: Array<{ id: string }> };
  for (const agent of agents.agents) {
    await client.must('PUT', `${base}/agents/${agent.id}`, { agent });
  }
  const files = await filesUnder(PACKAGE_DIR);
  for (const path of files.filter((f) => f.startsWith('assets/'))) {
    await client.must('PUT', `${base}/assets/file`, { path, content: await text(path) });
  }
  for (const workflow of manifest.workflows ?? []) {
    const wbase = `${base}/workflows/${workflow.id}`;
    await client.must('POST', `${base}/workflows`, { id: workflow.id, name: workflow.displayName ?? workflow.id });
    await client.must('PUT', `${wbase}/workflow-md`, { content: await text(workflow.workflow) });
    const graphJson = await text(workflow.graph);
    const graph = JSON.parse(graphJson) as { nodes: Array<{ id: string; file: string }> };
    const nodeIds = new Set(graph.nodes.map((n) => n.id));
    // The new workflow's placeholder steps go first so their paths are free for the package's.
    for (const placeholder of ['start', 'end'].filter((id) => !nodeIds.has(id))) {
      await client.must('DELETE', `${wbase}/steps/${placeholder}`);
    }
    for (const node of graph.nodes) {
      await client.must('PUT', `${wbase}/steps/${node.id}`, { markdown: await text(node.file), path: node.file });
    }
    await client.must('PUT', `${wbase}/graph`, { content: graphJson });
  }
  return { projectId: project.id, created: true };
}
