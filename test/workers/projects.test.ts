import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { TestClient, joinProject, projectWithOwner, signedInClient } from './client.ts';
import { MEMBER_ADD_POLICY } from '../../worker/auth/throttle.ts';

describe('projects and roles', () => {
  it('creates a project owned by its creator and lists only my projects', async () => {
    const { owner, projectId } = await projectWithOwner();
    const stranger = await signedInClient('Stranger');
    const mine = await owner.get('/api/projects');
    expect(mine.data.projects.map((p: { id: string }) => p.id)).toEqual([projectId]);
    expect(mine.data.projects[0]).toMatchObject({ role: 'owner', agentsRevision: 1, assetsRevision: 1, workflowCount: 0 });
    expect((await stranger.get('/api/projects')).data.projects).toEqual([]);
  });

  it('answers 404 to a non-member, whether or not the project exists', async () => {
    const { base } = await projectWithOwner();
    const stranger = await signedInClient('Stranger');
    const existing = await stranger.get(base);
    const missing = await stranger.get('/api/projects/prj_doesnotexist');
    expect(existing.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(existing.error).toEqual(missing.error);
    expect((await stranger.patch(base, { name: 'Mine now' })).status).toBe(404);
    expect((await stranger.get(`${base}/workflows`)).status).toBe(404);
    expect((await stranger.delete(base)).status).toBe(404);
  });

  it('lets a viewer read but not write (403), an editor write, and only an owner delete', async () => {
    const { owner, base, member } = await projectWithOwner();
    const viewer = await member('viewer');
    const editor = await member('editor');
    expect((await viewer.get(base)).data.project.role).toBe('viewer');
    const denied = await viewer.patch(base, { name: 'Renamed by viewer' });
    expect(denied.status).toBe(403);
    expect(denied.error?.code).toBe('FORBIDDEN');
    expect((await viewer.post(`${base}/workflows`, { id: 'w1', name: 'W' })).status).toBe(403);
    expect((await viewer.put(`${base}/domain-profile`, { industryDomain: 'x' })).status).toBe(403);
    expect((await owner.get(base)).data.project.name).toBe('Expense ops');

    const renamed = await editor.patch(base, { name: 'Expense operations', version: '1.1.0' });
    expect(renamed.status).toBe(200);
    expect(renamed.data.project).toMatchObject({ name: 'Expense operations', version: '1.1.0', role: 'editor' });
    expect((await editor.delete(base)).status).toBe(403);
    expect((await owner.delete(base)).status).toBe(200);
    expect((await owner.get(base)).status).toBe(404);
  });

  it('keeps a domain profile that editors can change', async () => {
    const { base, member } = await projectWithOwner();
    const editor = await member('editor');
    const profile = {
      industryDomain: 'Corporate finance',
      targetUsers: 'Finance controllers',
      painPoints: 'Manual receipt checks',
      expectedOutcomes: 'Policy-compliant reports',
      qualityStyle: 'Precise and auditable',
    };
    const res = await editor.put(`${base}/domain-profile`, profile);
    expect(res.status).toBe(200);
    expect(res.data.project.domainProfile).toEqual(profile);
    const bad = await editor.put(`${base}/domain-profile`, { industryDomain: 5, unknownField: 'x' });
    expect(bad.status).toBe(422);
    expect((await editor.get(base)).data.project.domainProfile).toEqual(profile);
  });

  it('rejects empty names and empty updates', async () => {
    const owner = await signedInClient('Names');
    expect((await owner.post('/api/projects', { name: '   ' })).status).toBe(422);
    const { base, owner: o } = await projectWithOwner();
    expect((await o.patch(base, {})).status).toBe(422);
    expect((await o.patch(base, { version: 'one' })).error?.code).toBe('VALIDATION_FAILED');
  });

  it('needs a session for every project route', async () => {
    const { base } = await projectWithOwner();
    const anon = new TestClient();
    expect((await anon.get('/api/projects')).error?.code).toBe('AUTH_MISSING_TOKEN');
    expect((await anon.get(base)).status).toBe(401);
    expect((await anon.get(`${base}/history`)).status).toBe(401);
  });
});

describe('members', () => {
  it('adds a person who accepts an invitation, changes the role and removes them', async () => {
    const { owner, base, projectId } = await projectWithOwner();
    const bob = await signedInClient('Bob');
    // The email as typed in another case is the same email.
    const joined = await joinProject(owner, projectId, bob, bob.email.toUpperCase(), 'viewer');
    expect(joined.data.project).toMatchObject({ id: projectId, role: 'viewer' });
    expect((await owner.get(`${base}/members`)).data.members.find((m: { userId: string }) => m.userId === bob.userId)).toMatchObject({ role: 'viewer', name: 'Bob' });
    expect((await owner.post(`${base}/members`, { email: bob.email, role: 'editor' })).error?.code).toBe('MEMBER_EXISTS');
    expect((await owner.patch(`${base}/members/${bob.userId}`, { role: 'editor' })).data.member.role).toBe('editor');
    expect((await bob.get(base)).data.project.role).toBe('editor');
    expect((await owner.get(`${base}/members`)).data.members).toHaveLength(2);
    expect((await owner.delete(`${base}/members/${bob.userId}`)).status).toBe(200);
    expect((await bob.get(base)).status).toBe(404);
  });

  it('refuses a bad role', async () => {
    const { owner, base } = await projectWithOwner();
    const bad = await owner.post(`${base}/members`, { email: 'ghost@example.test', role: 'admin' });
    expect(bad.status).toBe(422);
    expect((await owner.get(`${base}/members`)).data.invitations).toEqual([]);
  });

  it('limits how many invitations one person sends in a short time, the same for every email', async () => {
    const { owner, base } = await projectWithOwner();
    const real = await signedInClient('Listed');
    for (let i = 0; i < MEMBER_ADD_POLICY.allowance; i++) {
      expect((await owner.post(`${base}/members`, { email: `ghost-${i}@example.test`, role: 'viewer' })).status).toBe(201);
    }
    for (const email of ['ghost-next@example.test', real.email]) {
      const refused = await owner.post(`${base}/members`, { email, role: 'viewer' });
      expect(refused.status).toBe(429);
      expect(refused.error?.code).toBe('RATE_LIMITED');
      expect(Number(refused.headers.get('retry-after'))).toBe(MEMBER_ADD_POLICY.baseDelayMs / 1000);
    }
    // Nobody was invited by a refused request, and nobody was added.
    expect((await real.get('/api/users/me/invitations')).data.invitations).toEqual([]);
    expect((await real.get(base)).status).toBe(404);
    // Another owner has an allowance of their own.
    const other = await projectWithOwner();
    expect((await other.owner.post(`${other.base}/members`, { email: real.email, role: 'viewer' })).status).toBe(201);
  });

  it('only owners manage members, anyone may leave, and the last owner stays', async () => {
    const { owner, base, member } = await projectWithOwner();
    const editor = await member('editor');
    const viewer = await member('viewer');
    expect((await editor.post(`${base}/members`, { email: 'x@example.test', role: 'viewer' })).status).toBe(403);
    expect((await editor.patch(`${base}/members/${viewer.userId}`, { role: 'editor' })).status).toBe(403);
    expect((await editor.delete(`${base}/members/${viewer.userId}`)).status).toBe(403);
    expect((await viewer.delete(`${base}/members/${viewer.userId}`)).status).toBe(200);
    expect((await viewer.get(base)).status).toBe(404);

    const demote = await owner.patch(`${base}/members/${owner.userId}`, { role: 'editor' });
    expect(demote.status).toBe(409);
    expect(demote.error?.code).toBe('LAST_OWNER');
    expect((await owner.delete(`${base}/members/${owner.userId}`)).error?.code).toBe('LAST_OWNER');
    expect((await owner.patch(`${base}/members/${editor.userId}`, { role: 'owner' })).status).toBe(200);
    expect((await owner.patch(`${base}/members/${owner.userId}`, { role: 'viewer' })).status).toBe(200);
    const roles = await env.DB.prepare('SELECT role FROM project_members WHERE project_id = ? ORDER BY role').bind(base.split('/').pop()).all<{ role: string }>();
    expect(roles.results.map((r: { role: string }) => r.role)).toEqual(['owner', 'viewer']);
  });
});
