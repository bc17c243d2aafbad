/**
 * The Worker's one channel to a project's live session objects: finds the project's active AI
 * sessions in one query and calls each object's `projectMessage` RPC, awaiting them all, so a
 * route that changed something answers only after every live socket was told. Membership changes,
 * sign-outs, baseline moves, changes to a person and project deletions use it (the union in
 * shared/ai/project-channel.ts).
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { aiSessions, projectMembers } from '../db/schema.ts';
import { ApiError } from '../../shared/api-error.ts';
import type { ProjectChannelMessage } from '../../shared/ai/project-channel.ts';
import { sessionObject, type AiSessionNamespace } from './session-stub.ts';

type ChannelEnv = { AI_SESSION: AiSessionNamespace };

/**
 * Only active sessions are told. An ended (cancelled) session is read-only for every socket and
 * every route, and sends nothing live (no event, no presence), so a socket on it that missed a
 * removal or a sign-out can neither change nor learn anything: PROTOCOL.md "Ended sessions are
 * read-only". The cancel itself runs in the object's queue, so no comment slips in while D1 already
 * says cancelled and the object does not yet.
 */
async function deliver(env: ChannelEnv, sessions: ReadonlyArray<{ id: string; projectId: string }>, message: ProjectChannelMessage): Promise<number> {
  const results = await Promise.allSettled(
    sessions.map(async ({ id, projectId }) => {
      const stub = await sessionObject(env.AI_SESSION, id);
      return (await stub.projectMessage(projectId, message)).sockets;
    }),
  );
  const failed = results.filter((r) => r.status === 'rejected').length;
  if (failed > 0) {
    console.error('project channel: some session objects could not be told', { type: message.type, failed, of: sessions.length });
    throw new ApiError('INTERNAL_ERROR', {
      message: 'The change was saved, but some open AI sessions could not be told yet.',
      hints: ['Try the same action again in a moment.'],
    });
  }
  return results.reduce((sum, r) => sum + (r.status === 'fulfilled' ? r.value : 0), 0);
}

/** The live (active) sessions of `projectId`. */
export function liveSessionsOf(db: Db, projectId: string): Promise<Array<{ id: string; projectId: string }>> {
  return db
    .select({ id: aiSessions.id, projectId: aiSessions.projectId })
    .from(aiSessions)
    .where(and(eq(aiSessions.projectId, projectId), eq(aiSessions.status, 'active')));
}

/** Tell every live session of `projectId`; resolves with how many sockets the message reached. */
export async function tellProject(env: ChannelEnv, db: Db, projectId: string, message: ProjectChannelMessage): Promise<number> {
  return deliver(env, await liveSessionsOf(db, projectId), message);
}

/** Tell sessions already known (the sign-in query lists a project's live ones); resolves with the sockets reached. */
export function tellSessions(env: ChannelEnv, sessions: ReadonlyArray<{ id: string; projectId: string }>, message: ProjectChannelMessage): Promise<number> {
  return deliver(env, sessions, message);
}

/**
 * Something the sessions may keep about `userId` changed (their AI profile, their language): every
 * live session of theirs forgets it. Call after the D1 write (`at` is taken here, after it).
 */
export function tellCallerChanged(env: ChannelEnv, db: Db, userId: string): Promise<number> {
  return tellUserProjects(env, db, userId, { type: 'callerChanged', userId, at: Date.now() });
}

/** Tell every live session of every project `userId` is a member of (a sign-out, a change to the person). */
export async function tellUserProjects(env: ChannelEnv, db: Db, userId: string, message: ProjectChannelMessage): Promise<number> {
  const sessions = await db
    .select({ id: aiSessions.id, projectId: aiSessions.projectId })
    .from(aiSessions)
    .innerJoin(projectMembers, eq(projectMembers.projectId, aiSessions.projectId))
    .where(and(eq(projectMembers.userId, userId), eq(aiSessions.status, 'active')));
  return deliver(env, sessions, message);
}
