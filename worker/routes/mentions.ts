/**
 * /api/users/me/mentions: the caller's own @mention notices (unread, or all with `?all=true`) and
 * …/:mentionId/read to mark one read. No user id in the path: nobody can address another's list.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { ok } from '../http/respond.ts';
import { queryWith } from '../http/validate.ts';
import { requireUser } from '../middleware/require-user.ts';
import { MentionsQuery } from '../../shared/api/mentions.ts';
import { listMentions, markMentionRead } from '../store/mentions.ts';

export const mentionRoutes = new Hono<AppEnv>()
  .use(requireUser())
  .get('/', queryWith(MentionsQuery), async (c) => ok(c, await listMentions(c.var.db, c.var.user.id, c.req.valid('query'))))
  .post('/:mentionId/read', async (c) => ok(c, await markMentionRead(c.var.db, c.var.user.id, c.req.param('mentionId'))));
