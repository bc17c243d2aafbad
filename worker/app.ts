/** The Hono application: one router per resource, one error handler, one envelope. */
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { AppEnv } from './app-env.ts';
import { ApiError } from '../shared/api-error.ts';
import { sameOrigin } from './middleware/same-origin.ts';
import { requireUser } from './middleware/require-user.ts';
import { securityHeaders } from './middleware/security-headers.ts';
import { baselineMoved } from './middleware/baseline-moved.ts';
import { d1Session } from './middleware/d1-session.ts';
import { benchRoundTripRoutes } from './routes/bench-round-trips.ts';
import { authRoutes } from './routes/auth.ts';
import { projectRoutes } from './routes/projects.ts';
import { memberRoutes } from './routes/members.ts';
import { workflowRoutes } from './routes/workflows.ts';
import { agentRoutes } from './routes/agents.ts';
import { assetRoutes } from './routes/assets.ts';
import { historyRoutes } from './routes/history.ts';
import { aiSessionRoutes } from './routes/ai-sessions.ts';
import { aiAuditRoutes } from './routes/ai-audit.ts';
import { llmProfileRoutes } from './routes/llm-profile.ts';
import { mentionRoutes } from './routes/mentions.ts';
import { invitationRoutes } from './routes/invitations.ts';
import { ROUTE_PRELOADS } from './routes/preloads.ts';
import { knownCallerMessage } from './routes/known-caller-message.ts';
import { isUniqueViolation, logError } from '../shared/errors-report.ts';
import { localiseErrorBody } from '../shared/i18n/error-text.ts';
import { requestLocale } from './http/locale.ts';

const api = new Hono<AppEnv>()
  // Before the D1 session and auth: the bench's counter read-out (404 unless D1_COUNT_ROUND_TRIPS).
  .route('/__bench', benchRoundTripRoutes)
  .use(d1Session())
  .use(sameOrigin())
  .get('/health', (c) => c.json({ data: { ok: true }, error: null }))
  .route('/auth', authRoutes)
  .route('/users/me/llm-profile', llmProfileRoutes)
  .route('/users/me/mentions', mentionRoutes)
  .route('/users/me/invitations', invitationRoutes)
  // A message from a login its session already knows is accepted before (and without) the D1 check;
  // anything else goes on to requireUser below (routes/known-caller-message.ts).
  .post('/projects/:projectId/ai/sessions/:sessionId/messages', knownCallerMessage)
  .use('/projects/*', requireUser(ROUTE_PRELOADS))
  .use('/projects', requireUser())
  .use('/projects/*', baselineMoved())
  .route('/projects', projectRoutes)
  .route('/projects/:projectId/members', memberRoutes)
  .route('/projects/:projectId/workflows', workflowRoutes)
  .route('/projects/:projectId/agents', agentRoutes)
  .route('/projects/:projectId/assets', assetRoutes)
  .route('/projects/:projectId/history', historyRoutes)
  .route('/projects/:projectId/ai/sessions', aiSessionRoutes)
  .route('/projects/:projectId/ai', aiAuditRoutes);

export const app = new Hono<AppEnv>()
  // First, so its headers land on every answer, errors and the socket upgrade included.
  .use(securityHeaders())
  .route('/api', api)
  .all('/api/*', () => {
    throw new ApiError('NOT_FOUND', { message: 'There is no API endpoint at this address.' });
  });

app.onError((error, c) => {
  if (error instanceof ApiError) {
    for (const [name, value] of Object.entries(error.headers ?? {})) c.header(name, value);
    return c.json({ data: null, error: localiseErrorBody(error.toBody(), requestLocale(c)) }, error.status as 400);
  }
  if (error instanceof HTTPException && error.status < 500) {
    return c.json({ data: null, error: localiseErrorBody({ code: 'BAD_REQUEST' as const, message: error.message }, requestLocale(c)) }, error.status);
  }
  // A unique index refusing a write is a conflict, whichever route missed handling it.
  const locale = requestLocale(c);
  if (isUniqueViolation(error)) return c.json({ data: null, error: localiseErrorBody(new ApiError('CONFLICT').toBody(), locale) }, 409);
  // The error itself is never logged or answered: drizzle's message carries the query's parameters.
  logError('unhandled error', error, { method: c.req.method, path: new URL(c.req.url).pathname });
  const body = localiseErrorBody(new ApiError('INTERNAL_ERROR').toBody(), locale);
  return c.json({ data: null, error: body }, 500);
});

app.notFound((c) => c.json({ data: null, error: localiseErrorBody(new ApiError('NOT_FOUND').toBody(), requestLocale(c)) }, 404));

export type AppType = typeof app;
