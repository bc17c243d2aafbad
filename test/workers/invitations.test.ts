/**
 * Joining a project by invitation, through the real routes: inviting answers the same for an email
 * with an account and one without (no account enumeration), only the account with the invited
 * email accepts, before the expiry, and owners alone invite and withdraw. Accepting tells the
 * project's live sessions, as every membership change does.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { d1RoundTripLog, resetD1RoundTrips } from '../../worker/db/instrumented-d1.ts';
import { INVITATION_TTL_DAYS } from '../../shared/api/invitations.ts';
import { TestClient, joinProject, projectWithOwner, signedInClient } from './client.ts';
import { stepSession, supportDeskProject } from './sessions.ts';
import { objectRows } from './turns.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The answer with the values that differ by nature (ids, times, the email itself) replaced by their type. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]));
  return typeof value;
}

async function invitationFor(client: TestClient, projectId: string): Promise<{ id: string; role: string; projectName: string; invitedByName: string | null } | undefined> {
  const mine = await client.get('/api/users/me/invitations');
  expect(mine.status).toBe(200);
  return (mine.data.invitations as Array<{ id: string; projectId: string; role: string; projectName: string; invitedByName: string | null }>).find((i) => i.projectId === projectId);
}

describe('inviting by email', () => {
  it('answers the same for an email with an account and one without, and runs the same SQL for both', async () => {
    const { owner, base } = await projectWithOwner();
    const known = await signedInClient('Known');
    const unknownEmail = `nobody-${Date.now()}@example.test`;

    resetD1RoundTrips();
    const forKnown = await owner.post(`${base}/members`, { email: known.email, role: 'editor' });
    const knownSql = [...d1RoundTripLog()];
    resetD1RoundTrips();
    const forUnknown = await owner.post(`${base}/members`, { email: unknownEmail, role: 'editor' });
    const unknownSql = [...d1RoundTripLog()];

    expect(forKnown.status).toBe(201);
    expect(forUnknown.status).toBe(201);
    expect(forKnown.error).toBeNull();
    expect(forUnknown.error).toBeNull();
    expect(shape(forKnown.data)).toEqual(shape(forUnknown.data));
    expect(Object.keys(forKnown.data)).toEqual(['invitation']);
    expect(Object.keys(forKnown.data.invitation).sort()).toEqual(['createdAt', 'email', 'expiresAt', 'id', 'invitedByName', 'role']);
    expect(forKnown.data.invitation).toMatchObject({ email: known.email, role: 'editor', invitedByName: 'Owner' });
    expect(forUnknown.data.invitation).toMatchObject({ email: unknownEmail, role: 'editor', invitedByName: 'Owner' });
    // No account field (user id, name) in either, and the same queries (SQL text) for both.
    expect(JSON.stringify(forKnown.data)).not.toContain(known.userId);
    expect(JSON.stringify(forKnown.data)).not.toContain('Known');
    expect(knownSql.length).toBeGreaterThan(0);
    expect(knownSql).toEqual(unknownSql);
    const { createdAt, expiresAt } = forKnown.data.invitation as { createdAt: string; expiresAt: string };
    expect(Date.parse(expiresAt) - Date.parse(createdAt)).toBe(INVITATION_TTL_DAYS * DAY_MS);

    // The members list shows both as pending invitations, alike; nobody was added.
    const listed = await owner.get(`${base}/members`);
    expect(listed.data.members).toHaveLength(1);
    const pending = listed.data.invitations as Array<Record<string, unknown>>;
    expect(pending.map((i) => i.email).sort()).toEqual([known.email, unknownEmail].sort());
    expect(shape(pending[0])).toEqual(shape(pending[1]));
    expect((await known.get(base)).status).toBe(404);
  });

  it('lets only owners invite, see pending invitations and withdraw them', async () => {
    const { owner, base, member } = await projectWithOwner();
    const editor = await member('editor');
    const viewer = await member('viewer');
    const invited = await owner.post(`${base}/members`, { email: 'pending@example.test', role: 'viewer' });
    const invitationId = invited.data.invitation.id as string;
    for (const client of [editor, viewer]) {
      const refused = await client.post(`${base}/members`, { email: 'x@example.test', role: 'viewer' });
      expect(refused.status).toBe(403);
      expect(refused.error?.code).toBe('FORBIDDEN');
      expect((await client.delete(`${base}/members/invitations/${invitationId}`)).status).toBe(403);
      const listed = await client.get(`${base}/members`);
      expect(listed.status).toBe(200);
      expect(listed.data.invitations).toEqual([]);
    }
    const mine = await owner.get(`${base}/members`);
    expect((mine.data.invitations as Array<{ email: string }>).map((i) => i.email)).toEqual(['pending@example.test']);
    // A stranger gets the project's 404, as for every project route.
    const stranger = await signedInClient('Stranger');
    expect((await stranger.post(`${base}/members`, { email: 'y@example.test', role: 'viewer' })).status).toBe(404);
  });

  it('refuses an email that a member of the project already uses', async () => {
    const { owner, base } = await projectWithOwner();
    const self = await owner.post(`${base}/members`, { email: owner.email, role: 'viewer' });
    expect(self.status).toBe(409);
    expect(self.error?.code).toBe('MEMBER_EXISTS');
    expect((await owner.get(`${base}/members`)).data.invitations).toEqual([]);
  });
});

describe('answering an invitation', () => {
  it('shows the invited person their invitation; accepting makes them a member who can open the project', async () => {
    const { owner, base, projectId } = await projectWithOwner();
    const ada = await signedInClient('Ada');
    expect((await owner.post(`${base}/members`, { email: ada.email, role: 'editor' })).status).toBe(201);
    const invitation = await invitationFor(ada, projectId);
    expect(invitation).toMatchObject({ role: 'editor', projectName: 'Expense ops', invitedByName: 'Owner' });
    // Invited is not a member yet.
    expect((await ada.get(base)).status).toBe(404);

    const accepted = await ada.post(`/api/users/me/invitations/${invitation!.id}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.data.project).toMatchObject({ id: projectId, role: 'editor' });
    expect((await ada.get(base)).data.project.role).toBe('editor');
    expect((await ada.get(`${base}/workflows`)).status).toBe(200);
    expect((await ada.get('/api/projects')).data.projects.map((p: { id: string }) => p.id)).toEqual([projectId]);
    const members = await owner.get(`${base}/members`);
    expect(members.data.members.find((m: { userId: string }) => m.userId === ada.userId)).toMatchObject({ role: 'editor', email: ada.email });
    expect(members.data.invitations).toEqual([]);
    expect(await invitationFor(ada, projectId)).toBeUndefined();
    // Used once: a second accept finds nothing.
    const again = await ada.post(`/api/users/me/invitations/${invitation!.id}/accept`);
    expect(again.status).toBe(404);
    expect(again.error?.code).toBe('INVITATION_NOT_FOUND');
  });

  it('waits for someone who registers later with the invited email', async () => {
    const { owner, base, projectId } = await projectWithOwner();
    const email = `later-${Date.now()}@example.test`;
    expect((await owner.post(`${base}/members`, { email, role: 'viewer' })).status).toBe(201);
    const newcomer = new TestClient();
    expect((await newcomer.post('/api/auth/register', { email, password: 'correct horse battery', name: 'Newcomer' })).status).toBe(201);
    const invitation = await invitationFor(newcomer, projectId);
    expect(invitation?.role).toBe('viewer');
    expect((await newcomer.post(`/api/users/me/invitations/${invitation!.id}/accept`)).status).toBe(200);
    expect((await newcomer.get(base)).data.project.role).toBe('viewer');
  });

  it('cannot be seen, accepted or declined by anyone but the invited account', async () => {
    const { owner, base, projectId, member } = await projectWithOwner();
    const invitee = await signedInClient('Invitee');
    const invited = await owner.post(`${base}/members`, { email: invitee.email, role: 'owner' });
    const invitationId = invited.data.invitation.id as string;
    const other = await signedInClient('Other');
    const editor = await member('editor');
    for (const client of [other, editor, owner]) {
      expect(await invitationFor(client, projectId)).toBeUndefined();
      const accept = await client.post(`/api/users/me/invitations/${invitationId}/accept`);
      expect(accept.status).toBe(404);
      expect(accept.error?.code).toBe('INVITATION_NOT_FOUND');
      expect((await client.post(`/api/users/me/invitations/${invitationId}/decline`)).error?.code).toBe('INVITATION_NOT_FOUND');
    }
    expect((await other.get(base)).status).toBe(404);
    expect((await editor.get(base)).data.project.role).toBe('editor');
    // Still pending for the one it is addressed to.
    expect((await owner.get(`${base}/members`)).data.invitations).toHaveLength(1);
    expect((await invitee.post(`/api/users/me/invitations/${invitationId}/accept`)).data.project.role).toBe('owner');
    // Signed out, nobody accepts anything.
    expect((await new TestClient().post(`/api/users/me/invitations/${invitationId}/accept`)).error?.code).toBe('AUTH_MISSING_TOKEN');
  });

  it('declining removes the invitation and adds nobody', async () => {
    const { owner, base, projectId } = await projectWithOwner();
    const bea = await signedInClient('Bea');
    await owner.post(`${base}/members`, { email: bea.email, role: 'editor' });
    const invitation = await invitationFor(bea, projectId);
    const declined = await bea.post(`/api/users/me/invitations/${invitation!.id}/decline`);
    expect(declined.status).toBe(200);
    expect(await invitationFor(bea, projectId)).toBeUndefined();
    expect((await owner.get(`${base}/members`)).data.invitations).toEqual([]);
    expect((await bea.post(`/api/users/me/invitations/${invitation!.id}/accept`)).error?.code).toBe('INVITATION_NOT_FOUND');
    expect((await bea.get(base)).status).toBe(404);
  });

  it('cannot be accepted once an owner withdrew it', async () => {
    const { owner, base, projectId } = await projectWithOwner();
    const cai = await signedInClient('Cai');
    const invited = await owner.post(`${base}/members`, { email: cai.email, role: 'editor' });
    const invitationId = invited.data.invitation.id as string;
    expect((await owner.delete(`${base}/members/invitations/${invitationId}`)).status).toBe(200);
    expect((await owner.delete(`${base}/members/invitations/${invitationId}`)).error?.code).toBe('INVITATION_NOT_FOUND');
    expect(await invitationFor(cai, projectId)).toBeUndefined();
    expect((await cai.post(`/api/users/me/invitations/${invitationId}/accept`)).error?.code).toBe('INVITATION_NOT_FOUND');
    expect((await cai.get(base)).status).toBe(404);
    // Another project's owner cannot withdraw it through their own project.
    const again = await owner.post(`${base}/members`, { email: cai.email, role: 'editor' });
    const other = await projectWithOwner();
    expect((await other.owner.delete(`${other.base}/members/invitations/${again.data.invitation.id}`)).error?.code).toBe('INVITATION_NOT_FOUND');
    expect(await invitationFor(cai, projectId)).toBeDefined();
  });

  it('cannot be accepted after it expires; inviting again renews it', async () => {
    const { owner, base, projectId } = await projectWithOwner();
    const dan = await signedInClient('Dan');
    const invited = await owner.post(`${base}/members`, { email: dan.email, role: 'viewer' });
    const invitationId = invited.data.invitation.id as string;
    // The clock cannot be moved inside workerd: the row is dated back instead.
    const past = new Date(Date.now() - DAY_MS).toISOString();
    await env.DB.prepare('UPDATE project_invitations SET expires_at = ? WHERE id = ?').bind(past, invitationId).run();

    expect(await invitationFor(dan, projectId)).toBeUndefined();
    const late = await dan.post(`/api/users/me/invitations/${invitationId}/accept`);
    expect(late.status).toBe(410);
    expect(late.error?.code).toBe('INVITATION_EXPIRED');
    expect((await dan.get(base)).status).toBe(404);
    // The owner still sees it (to renew or withdraw), dated as expired.
    expect((await owner.get(`${base}/members`)).data.invitations).toEqual([expect.objectContaining({ id: invitationId, expiresAt: past })]);

    const renewed = await owner.post(`${base}/members`, { email: dan.email, role: 'editor' });
    expect(renewed.status).toBe(201);
    expect(renewed.data.invitation.id).toBe(invitationId);
    expect(Date.parse(renewed.data.invitation.expiresAt)).toBeGreaterThan(Date.now());
    expect((await dan.post(`/api/users/me/invitations/${invitationId}/accept`)).data.project.role).toBe('editor');
  });

  it('tells the project\'s live sessions when someone joins, as for any membership change', async () => {
    const project = await supportDeskProject();
    const sessionId = await stepSession(project.owner, project.base);
    const eve = await signedInClient('Eve');
    await joinProject(project.owner, project.projectId, eve, eve.email, 'editor');
    // The session object keeps the roles the project channel tells it (durable-objects/ai-session/sockets/members.ts).
    const rows = await objectRows(sessionId, `SELECT role FROM members WHERE user_id = '${eve.userId}'`);
    expect(rows).toEqual([{ role: 'editor' }]);
  });
});
