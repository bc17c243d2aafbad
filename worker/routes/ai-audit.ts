/**
 * /api/projects/:projectId/ai/audit/events, …/ai/metrics and …/ai/usage: the AI audit trail,
 * newest first, the numbers computed from it, and tokens and cost per person. Editors and owners only:
 * the trail names who did what, which a viewer does not need. Definitions: worker/store/ai-audit.ts.
 *
 * Mounted at `/projects/:projectId/ai` beside the session router (`…/ai/sessions`), so the role
 * check sits on each route rather than on a router-wide `use()`: a wildcard middleware here would
 * also run for every session route and lock viewers out of them.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.ts';
import { ok } from '../http/respond.ts';
import { queryWith } from '../http/validate.ts';
import { redactSecrets } from '../llm/redact.ts';
import { projectAccess } from '../middleware/project-access.ts';
import { computeAiMetrics, listAuditEvents } from '../store/ai-audit.ts';
import { usageByPerson } from '../store/ai-usage.ts';
import { AuditEventsQuery, MetricsQuery, type AuditEventsPage } from '../../shared/api/ai-audit.ts';

const editorsOnly = projectAccess({ read: 'editor', write: 'editor' });

export const aiAuditRoutes = new Hono<AppEnv>()
  .get('/audit/events', editorsOnly, queryWith(AuditEventsQuery), async (c) => {
    const page = await listAuditEvents(c.var.db, c.var.projectId, c.req.valid('query'));
    // Payloads are redacted when written; redact again on the way out (defence in depth).
    const body: AuditEventsPage = { ...page, items: page.items.map((item) => ({ ...item, payload: redactSecrets(item.payload) })) };
    return ok(c, body);
  })
  .get('/metrics', editorsOnly, queryWith(MetricsQuery), async (c) =>
    ok(c, await computeAiMetrics(c.var.db, c.var.projectId, c.req.valid('query'))),
  )
  // Tokens and estimated cost per person: people may spend a shared key (worker/store/ai-usage.ts).
  .get('/usage', editorsOnly, queryWith(MetricsQuery), async (c) => ok(c, await usageByPerson(c.var.db, c.var.projectId, c.req.valid('query'))));
