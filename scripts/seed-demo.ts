/**
 * Seeds the demo account, a viewer, the demo model profile (unless the demo user saved a model of
 * their own) and the demo projects through the product's own API, so the demo data passes the
 * same checks as any author's package: the English
 * demo project (scripts/demo-package/, a multi-workflow .bmad package imported as a zip) and a
 * small Chinese one (test/fixtures/packages/zh-review/, 需求评审, the package the i18n tests use).
 * Idempotent: an existing demo project is left alone.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { SeedClient, failureText } from './lib/api-client.ts';

export const DEMO_USER = { email: 'demo@crewagent.local', password: 'demo-password-123', name: 'Demo Author' };
export const DEMO_VIEWER = { email: 'viewer@crewagent.local', password: 'viewer-password-123', name: 'Vera Viewer' };
const PACKAGE_DIR = new URL('./demo-package/', import.meta.url).pathname;
export const ZH_PACKAGE_DIR = new URL('../test/fixtures/packages/zh-review/', import.meta.url).pathname;
export const ZH_PROJECT_NAME = '需求评审（示例）';

/** A package folder as a .bmad zip (its top README.md is about the folder, not part of the package). */
export async function zipFolder(dir: string): Promise<Uint8Array> {
  const entries: Record<string, Uint8Array> = {};
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = relative(dir, join(entry.parentPath, entry.name));
    if (path !== 'README.md') entries[path] = strToU8(await readFile(join(dir, path), 'utf8'));
  }
  return zipSync(Object.fromEntries(Object.entries(entries).sort(([a], [b]) => a.localeCompare(b))));
}

/**
 * Signs the demo user in, or registers them when the server says the email and password are not
 * an account's (401). Any other refusal (429 while sign-ins from here are throttled, a 5xx) stops
 * the seed with the server's own code, message and hints: registering then would only fail with a
 * misleading AUTH_EMAIL_TAKEN.
 */
async function signIn(client: SeedClient, user: typeof DEMO_USER): Promise<'signed_in' | 'registered'> {
  const login = await client.call('POST', '/api/auth/login', { email: user.email, password: user.password });
  if (login.status === 200) return 'signed_in';
  if (login.status !== 401) throw new Error(failureText('POST', '/api/auth/login', login));
  await client.must('POST', '/api/auth/register', user);
  return 'registered';
}

/**
 * Whether the demo user's AI settings are the seed's to write: none of their own yet (`disabled`,
 * the server's default), or still the scripted demo model (its port may have changed since). A
 * provider, model and key someone saved in Settings → AI are kept on every later start.
 */
async function holdsDemoProfile(client: SeedClient): Promise<boolean> {
  const profile = await client.must<{ provider: string; preset: string | null; model: string | null }>('GET', '/api/users/me/llm-profile');
  return profile.provider === 'disabled' || profile.preset === 'scripted-demo' || profile.model === 'scripted-demo';
}

export async function seedDemo(
  baseUrl: string,
  options: { scriptedModelUrl?: string } = {},
): Promise<{ projectId: string; created: boolean; zhProjectId: string }> {
  const viewer = new SeedClient(baseUrl);
  await signIn(viewer, DEMO_VIEWER);
  const client = new SeedClient(baseUrl);
  await signIn(client, DEMO_USER);

  if (options.scriptedModelUrl && (await holdsDemoProfile(client))) {
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
    if (res.status >= 400) throw new Error(failureText('PUT', '/api/users/me/llm-profile', res));
  }

  const projectName = 'Vendor onboarding (demo)';
  const { projects } = await client.must<{ projects: Array<{ id: string; name: string }> }>('GET', '/api/projects');
  // The Chinese example sits beside the English demo (its content language is detected as zh on import).
  const zhProjectId =
    projects.find((p) => p.name === ZH_PROJECT_NAME)?.id ??
    (await client.upload<{ project: { id: string } }>('/api/projects/import', await zipFolder(ZH_PACKAGE_DIR), { name: ZH_PROJECT_NAME })).project.id;
  const existing = projects.find((p) => p.name === projectName);
  if (existing) return { projectId: existing.id, created: false, zhProjectId };

  // The demo package goes in the way any author's would: as a .bmad zip through the import API.
  const { project } = await client.upload('/api/projects/import', await zipFolder(PACKAGE_DIR), { name: projectName });
  const base = `/api/projects/${project.id}`;
  await client.must('PUT', `${base}/domain-profile`, {
    industryDomain: 'Procurement and vendor risk management',
    targetUsers: 'Procurement analysts, risk officers, legal and finance reviewers',
    painPoints: 'Onboarding takes weeks, documents go missing, risk checks differ between reviewers',
    expectedOutcomes: 'Every vendor onboarded with a complete, auditable risk file in days, not weeks',
    qualityStyle: 'Precise, checklist-driven, auditable; cite the policy section behind every decision',
  });
  // The viewer joins as anyone does: invited by email, then accepting.
  const { invitation } = await client.must<{ invitation: { id: string } }>('POST', `${base}/members`, { email: DEMO_VIEWER.email, role: 'viewer' });
  await viewer.must('POST', `/api/users/me/invitations/${invitation.id}/accept`, {});
  return { projectId: project.id, created: true, zhProjectId };
}
