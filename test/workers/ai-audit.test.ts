/**
 * The AI audit trail and metrics API through the real Worker and real D1: GET …/ai/audit/events
 * (newest first, filters, keyset cursor, redaction) and GET …/ai/metrics (exact numbers on a
 * seeded trail), editors and owners only. Rows are seeded straight into D1 with the payloads
 * shared/ai/audit.ts promises, so the numbers do not depend on a model.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../worker/db/client.ts';
import { aiAuditEvents } from '../../worker/db/schema.ts';
import type { AuditEventType } from '../../shared/ai/audit.ts';
import { projectWithOwner, signedInClient } from './client.ts';

interface Seed {
  type: AuditEventType;
  sessionId?: string | null;
  userId?: string | null;
  code?: string | null;
  latencyMs?: number | null;
  payload?: unknown;
  /** Raw payload text, for a damaged row. */
  payloadJson?: string;
  /** Minutes after 2025-03-01T10:00:00Z. */
  minute: number;
}

const at = (minute: number) => new Date(Date.UTC(2025, 2, 1, 10, minute)).toISOString();
const usage = (prompt: number, completion: number, calls = 1) => ({ promptTokens: prompt, completionTokens: completion, totalTokens: prompt + completion, calls });

/** Insert rows with ids `aud_<project>_<tag>_<index>`, so id order is index order. Returns the ids. */
async function seed(projectId: string, rows: readonly Seed[], tag = 'a'): Promise<string[]> {
  const db = createDb(env.DB);
  const ids = rows.map((_, i) => `aud_${projectId}_${tag}_${String(i).padStart(3, '0')}`);
  const inserts = rows.map((row, i) =>
    db.insert(aiAuditEvents).values({
      id: ids[i]!,
      projectId,
      sessionId: row.sessionId ?? null,
      userId: row.userId ?? null,
      eventType: row.type,
      code: row.code ?? null,
      latencyMs: row.latencyMs ?? null,
      payloadJson: row.payloadJson ?? JSON.stringify(row.payload ?? {}),
      createdAt: at(row.minute),
    }),
  );
  await db.batch(inserts as [(typeof inserts)[number], ...(typeof inserts)[number][]]);
  return ids;
}

const SECRET_KEY = 'sk-live-abcdef0123456789abcdef';
const BEARER = 'Bearer xyz.abc-0123456789-token';

/**
 * A realistic trail of five sessions (index = row; minute = index, except 24/25 which share a
 * minute to test the id tie-break). Expected numbers are worked out beside the metrics test.
 */
const TRAIL: readonly Seed[] = [
  /* 0 */ { minute: 0, type: 'ai.session.created', sessionId: 's1', userId: 'usr_alice', payload: { workflowId: 'wf', targetType: 'step', targetId: 'n1', mode: 'optimize' } },
  /* 1 */ { minute: 1, type: 'ai.message.sent', sessionId: 's1', userId: 'usr_alice', payload: { turnId: 't1', chars: 42, suggestOnly: false } },
  /* 2 */ { minute: 2, type: 'ai.prompt.composed', sessionId: 's1', userId: 'usr_alice', payload: { turnId: 't1', layers: ['0A', '0B', '1', '2', '3', '4', '5', '6'], persona: { source: 'project', confidence: 0.8 }, estimatedTokens: 1200, trimmed: false } },
  /* 3 */ { minute: 3, type: 'ai.tool.called', sessionId: 's1', userId: 'usr_alice', latencyMs: 120, payload: { turnId: 't1', toolCallId: 'c1', name: 'builder.step.read', ok: true } },
  /* 4 */ { minute: 4, type: 'ai.tool.called', sessionId: 's1', userId: 'usr_alice', code: 'AI_TOOL_FORBIDDEN', latencyMs: 5, payload: { turnId: 't1', toolCallId: 'c2', name: 'builder.change.apply', ok: false } },
  /* 5 */ { minute: 5, type: 'ai.validation.failed', sessionId: 's1', userId: 'usr_alice', code: 'AI_VALIDATION_FAILED', payload: { turnId: 't1', version: 1, errorCount: 2, codes: ['STEP_MISSING_GOAL'] } },
  /* 6 */ { minute: 6, type: 'ai.turn.finished', sessionId: 's1', userId: 'usr_alice', latencyMs: 4000, payload: { turnId: 't1', iterations: 3, repairs: 1, usage: usage(100, 50, 3), responseType: 'change', changeSetId: 'cs_1', valid: true } },
  /* 7 */ { minute: 7, type: 'ai.apply.succeeded', sessionId: 's1', userId: 'usr_alice', payload: { changeSetId: 'cs_1', version: 1, contentHash: 'h1', files: ['step:wf/n1'], warnings: [{ field: 'workflowRevision', provided: 3, current: 4 }, { field: 'assetsRevision', provided: 1, current: 2 }] } },
  /* 8 */ { minute: 8, type: 'ai.session.created', sessionId: 's2', userId: 'usr_bob', payload: { workflowId: 'wf', targetType: 'workflow', targetId: 'wf', mode: 'optimize' } },
  /* 9 */ { minute: 9, type: 'ai.message.sent', sessionId: 's2', userId: 'usr_bob', payload: { turnId: 't2', chars: 10, suggestOnly: false } },
  /* 10 */ { minute: 10, type: 'ai.tool.called', sessionId: 's2', userId: 'usr_bob', code: 'AI_TOOL_NOT_ALLOWED', latencyMs: 3, payload: { turnId: 't2', toolCallId: 'c3', name: 'shell_exec', ok: false } },
  /* 11 */ { minute: 11, type: 'ai.tool.called', sessionId: 's2', userId: 'usr_bob', code: 'AI_TOOL_EXECUTION_ERROR', latencyMs: 80, payload: { turnId: 't2', toolCallId: 'c4', name: 'builder.workflow.read', ok: false } },
  /* 12 */ { minute: 12, type: 'ai.turn.failed', sessionId: 's2', userId: 'usr_bob', code: 'AI_PROVIDER_TIMEOUT', latencyMs: 9000, payload: { turnId: 't2', iterations: 2, repairs: 2, usage: usage(200, 0, 2) } },
  /* 13 */ { minute: 13, type: 'ai.message.sent', sessionId: 's2', userId: 'usr_bob', payload: { turnId: 't3', chars: 12, suggestOnly: false } },
  /* 14 */ { minute: 14, type: 'ai.turn.finished', sessionId: 's2', userId: 'usr_bob', latencyMs: 2000, payload: { turnId: 't3', iterations: 1, repairs: 0, usage: usage(300, 100), responseType: 'change', changeSetId: 'cs_2', valid: true } },
  /* 15 */ { minute: 15, type: 'ai.apply.failed', sessionId: 's2', userId: 'usr_bob', code: 'AI_APPLY_FAILED', payload: { changeSetId: 'cs_2', version: 1, cause: 'D1 refused the batch' } },
  /* 16 */ { minute: 16, type: 'ai.session.created', sessionId: 's3', userId: 'usr_alice', payload: { targetType: 'agent', targetId: 'analyst', mode: 'optimize' } },
  /* 17 */ { minute: 17, type: 'ai.message.sent', sessionId: 's3', userId: 'usr_alice', payload: { turnId: 't4', chars: 300, suggestOnly: true } },
  /* 18 */ { minute: 18, type: 'ai.turn.paused', sessionId: 's3', userId: 'usr_alice', code: 'AI_TOKEN_BUDGET_EXCEEDED', payload: { turnId: 't4', usage: usage(1000, 0, 4), tokenBudget: 1000 } },
  // t4 resumed after the budget was raised and finished: one turn, two ends.
  /* 19 */ { minute: 19, type: 'ai.turn.finished', sessionId: 's3', userId: 'usr_alice', latencyMs: 6000, payload: { turnId: 't4', iterations: 1, repairs: 0, usage: usage(50, 25), responseType: 'chat', changeSetId: null, valid: null } },
  /* 20 */ { minute: 20, type: 'ai.message.sent', sessionId: 's3', userId: 'usr_alice', payload: { turnId: 't5', chars: 5, suggestOnly: false } },
  /* 21 */ { minute: 21, type: 'ai.turn.stopped', sessionId: 's3', userId: 'usr_alice', latencyMs: 1000, payload: { turnId: 't5', usage: usage(10, 5) } },
  /* 22 */ { minute: 22, type: 'ai.session.created', sessionId: 's4', userId: 'usr_alice', payload: { targetType: 'asset', targetId: 'assets/a.md', mode: 'optimize' } },
  // Changes staged by hand and applied: no AI proposal, so not a conversion.
  /* 23 */ { minute: 23, type: 'ai.apply.succeeded', sessionId: 's4', userId: 'usr_alice', payload: { changeSetId: 'cs_4', version: 1, contentHash: 'h4', files: ['asset:assets/a.md'], warnings: [{ field: 'assetsRevision', provided: 1, current: 2 }] } },
  /* 24 */ { minute: 24, type: 'ai.session.cancelled', sessionId: 's3', userId: 'usr_bob', payload: {} },
  /* 25 */ {
    minute: 24,
    type: 'ai.apply.failed',
    sessionId: 's5',
    userId: 'usr_alice',
    code: 'AI_APPLY_FAILED',
    payload: { changeSetId: 'cs_5', version: 2, cause: `provider said: invalid key ${SECRET_KEY}`, request: { headers: { authorization: BEARER } }, note: `retried with ${BEARER}` },
  },
];

/** Rows of another project in the same window, with the same session ids and codes. */
const OTHER: readonly Seed[] = [
  { minute: 3, type: 'ai.session.created', sessionId: 's1', userId: 'usr_alice' },
  { minute: 5, type: 'ai.tool.called', sessionId: 's1', userId: 'usr_alice', code: 'AI_TOOL_FORBIDDEN', latencyMs: 1, payload: { name: 'builder.change.apply', ok: false } },
  { minute: 9, type: 'ai.turn.finished', sessionId: 's2', userId: 'usr_bob', latencyMs: 99_999, payload: { turnId: 'x', repairs: 7, usage: usage(5000, 5000), changeSetId: 'cs_x' } },
  { minute: 10, type: 'ai.apply.succeeded', sessionId: 's2', userId: 'usr_bob', payload: { changeSetId: 'cs_x', warnings: [{ field: 'w' }, { field: 'w' }] } },
];

/** Newest first: descending index (24 and 25 share a minute; 25 has the larger id). */
const NEWEST_FIRST = TRAIL.map((_, i) => i).reverse();

async function seededProject() {
  const setup = await projectWithOwner();
  const ids = await seed(setup.projectId, TRAIL);
  const other = await projectWithOwner();
  const otherIds = await seed(other.projectId, OTHER, 'b');
  const idsOf = (indexes: readonly number[]) => indexes.map((i) => ids[i]);
  return { ...setup, ids, idsOf, otherIds };
}

const eventsPath = (base: string, query = '') => `${base}/ai/audit/events${query ? `?${query}` : ''}`;

describe('GET /ai/audit/events', () => {
  it('lists the project\'s rows newest first, id breaking ties, with parsed payloads', async () => {
    const { owner, base, idsOf, otherIds } = await seededProject();
    const res = await owner.get(eventsPath(base, 'limit=200'));
    expect(res.status).toBe(200);
    expect(res.data.nextCursor).toBeNull();
    expect(res.data.items.map((e: any) => e.id)).toEqual(idsOf(NEWEST_FIRST));
    for (const id of otherIds) expect(res.data.items.map((e: any) => e.id)).not.toContain(id);
    expect(res.data.items.find((e: any) => e.type === 'ai.turn.finished' && e.sessionId === 's1')).toEqual({
      id: idsOf([6])[0],
      type: 'ai.turn.finished',
      sessionId: 's1',
      userId: 'usr_alice',
      code: null,
      latencyMs: 4000,
      payload: TRAIL[6]!.payload,
      createdAt: '2025-03-01T10:06:00.000Z',
    });
  });

  it('filters by type, session, user, code and time window, alone and together', async () => {
    const { owner, base, idsOf } = await seededProject();
    const ids = async (query: string) => {
      const res = await owner.get(eventsPath(base, query));
      expect(res.status, JSON.stringify(res.error)).toBe(200);
      return res.data.items.map((e: any) => e.id);
    };
    expect(await ids('type=ai.tool.called')).toEqual(idsOf([11, 10, 4, 3]));
    expect(await ids('sessionId=s2')).toEqual(idsOf([15, 14, 13, 12, 11, 10, 9, 8]));
    expect(await ids('userId=usr_bob')).toEqual(idsOf([24, 15, 14, 13, 12, 11, 10, 9, 8]));
    expect(await ids('code=AI_APPLY_FAILED')).toEqual(idsOf([25, 15]));
    // since inclusive, until exclusive; offsets are normalised to UTC.
    expect(await ids(`since=${encodeURIComponent('2025-03-01T11:08:00+01:00')}&until=2025-03-01T10:16:00Z`)).toEqual(idsOf([15, 14, 13, 12, 11, 10, 9, 8]));
    expect(await ids('type=ai.message.sent&sessionId=s3')).toEqual(idsOf([20, 17]));
    expect(await ids('type=ai.turn.finished&since=2025-03-01T10:10:00Z&userId=usr_alice')).toEqual(idsOf([19]));
    expect(await ids('sessionId=nope')).toEqual([]);
  });

  it('pages with the cursor without duplicates or gaps, across a timestamp tie', async () => {
    const { owner, base, idsOf } = await seededProject();
    for (const limit of [1, 4, 7]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = `limit=${limit}${cursor ? `&before=${encodeURIComponent(cursor)}` : ''}`;
        const res = await owner.get(eventsPath(base, query));
        expect(res.status).toBe(200);
        expect(res.data.items.length).toBeLessThanOrEqual(limit);
        seen.push(...res.data.items.map((e: any) => e.id));
        cursor = res.data.nextCursor;
        pages++;
      } while (cursor !== null && pages < 100);
      expect(seen).toEqual(idsOf(NEWEST_FIRST));
      expect(pages).toBe(Math.ceil(TRAIL.length / limit));
    }
    // Filters apply on every page.
    const first = await owner.get(eventsPath(base, 'sessionId=s2&limit=5'));
    const second = await owner.get(eventsPath(base, `sessionId=s2&limit=5&before=${encodeURIComponent(first.data.nextCursor)}`));
    expect([...first.data.items, ...second.data.items].map((e: any) => e.id)).toEqual(idsOf([15, 14, 13, 12, 11, 10, 9, 8]));
    expect(second.data.nextCursor).toBeNull();
  });

  it('answers a bad query with VALIDATION_FAILED and the field at fault', async () => {
    const { owner, base } = await seededProject();
    for (const [query, path] of [
      ['type=ai.bogus', 'type'],
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=ten', 'limit'],
      ['since=yesterday', 'since'],
      ['until=2025-13-01T00:00:00Z', 'until'],
      ['before=not-a-cursor', 'before'],
      [`before=${btoa('["only-one"]')}`, 'before'],
      ['since=2025-03-02T00:00:00Z&until=2025-03-01T00:00:00Z', 'since'],
    ] as const) {
      const res = await owner.get(eventsPath(base, query));
      expect(res.status, query).toBe(422);
      expect(res.error?.code, query).toBe('VALIDATION_FAILED');
      expect(res.error?.details?.map((d) => d.path), query).toContain(path);
    }
  });

  it('redacts secrets in payloads on the way out', async () => {
    const { owner, base } = await seededProject();
    const res = await owner.get(eventsPath(base, 'sessionId=s5'));
    expect(res.status).toBe(200);
    const [event] = res.data.items;
    const text = JSON.stringify(event.payload);
    expect(text).not.toContain('abcdef0123456789abcdef');
    expect(text).not.toContain('xyz.abc');
    expect(event.payload).toEqual({
      changeSetId: 'cs_5',
      version: 2,
      cause: 'provider said: invalid key ***REDACTED***',
      request: { headers: { authorization: '***REDACTED***' } },
      note: 'retried with Bearer ***REDACTED***',
    });
  });

  it('shows a damaged payload as null instead of failing the page', async () => {
    const { owner, projectId, base } = await projectWithOwner();
    await seed(projectId, [{ minute: 1, type: 'ai.turn.finished', latencyMs: 10, payloadJson: '{not json' }], 'd');
    const res = await owner.get(eventsPath(base));
    expect(res.status).toBe(200);
    expect(res.data.items.map((e: any) => e.payload)).toEqual([null]);
    const metrics = await owner.get(`${base}/ai/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.data.turns).toMatchObject({ total: 1, finished: 1 });
    expect(metrics.data.tokens).toEqual({ prompt: 0, completion: 0, total: 0 });
    expect(metrics.data.latencyMs).toEqual({ p50: 10, p95: 10, max: 10 });
  });
});

describe('GET /ai/metrics', () => {
  it('computes every number of the seeded trail exactly, ignoring other projects', async () => {
    const { editor, base } = await seededProject().then(async (s) => ({ ...s, editor: await s.member('editor') }));
    const res = await editor.get(`${base}/ai/metrics`);
    expect(res.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data).toEqual({
      window: { since: null, until: null },
      sessions: 4, // rows 0, 8, 16, 22
      messages: 5, // rows 1, 9, 13, 17, 20
      // t1..t5; t4 paused then finished is one turn. successRate = 3 / (3 + 1).
      turns: { total: 5, finished: 3, failed: 1, stopped: 1, paused: 1, successRate: 0.75 },
      // finished/failed/stopped latencies [1000, 2000, 4000, 6000, 9000]: p50 rank ceil(2.5) = 3, p95 rank ceil(4.75) = 5.
      latencyMs: { p50: 4000, p95: 9000, max: 9000 },
      tools: { calls: 4, failed: 3, forbidden: 1, notAllowed: 1 },
      codes: {
        AI_APPLY_FAILED: 2,
        AI_PROVIDER_TIMEOUT: 1,
        AI_TOKEN_BUDGET_EXCEEDED: 1,
        AI_TOOL_EXECUTION_ERROR: 1,
        AI_TOOL_FORBIDDEN: 1,
        AI_TOOL_NOT_ALLOWED: 1,
        AI_VALIDATION_FAILED: 1,
      },
      repairs: 3, // 1 (t1) + 2 (t2) + 0 + 0
      validationFailures: 1,
      // warnings: 2 (row 7) + 1 (row 23). Proposals in s1 and s2; only s1 applied (s4 applied hand-staged changes).
      apply: { succeeded: 2, failed: 2, revisionMismatchWarnings: 3, conversion: 0.5 },
      // finished/failed/stopped/paused: prompt 100+200+300+1000+50+10, completion 50+0+100+0+25+5.
      tokens: { prompt: 1660, completion: 180, total: 1840 },
    });
  });

  it('restricts every number to the since/until window', async () => {
    const { owner, base } = await seededProject();
    const res = await owner.get(`${base}/ai/metrics?since=${encodeURIComponent('2025-03-01T11:08:00+01:00')}&until=2025-03-01T10:16:00Z`);
    expect(res.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data).toEqual({
      window: { since: '2025-03-01T10:08:00.000Z', until: '2025-03-01T10:16:00.000Z' },
      sessions: 1,
      messages: 2,
      turns: { total: 2, finished: 1, failed: 1, stopped: 0, paused: 0, successRate: 0.5 },
      // [2000, 9000]: p50 rank 1, p95 rank ceil(1.9) = 2.
      latencyMs: { p50: 2000, p95: 9000, max: 9000 },
      tools: { calls: 2, failed: 2, forbidden: 0, notAllowed: 1 },
      codes: { AI_APPLY_FAILED: 1, AI_PROVIDER_TIMEOUT: 1, AI_TOOL_EXECUTION_ERROR: 1, AI_TOOL_NOT_ALLOWED: 1 },
      repairs: 2,
      validationFailures: 0,
      apply: { succeeded: 0, failed: 1, revisionMismatchWarnings: 0, conversion: 0 },
      tokens: { prompt: 500, completion: 100, total: 600 },
    });
  });

  it('takes p50/p95 by nearest rank over finished, failed and stopped turns only', async () => {
    const { owner, projectId, base } = await projectWithOwner();
    const kinds = ['ai.turn.finished', 'ai.turn.failed', 'ai.turn.stopped'] as const;
    // 10, 20, …, 200 in a scrambled order; plus latencies that must not count.
    const latencies = [70, 200, 10, 150, 40, 90, 180, 20, 130, 60, 110, 190, 30, 170, 80, 50, 120, 160, 100, 140];
    await seed(
      projectId,
      [
        ...latencies.map((ms, i): Seed => ({ minute: i, type: kinds[i % 3]!, sessionId: 'sx', latencyMs: ms, payload: { turnId: `t${i}`, repairs: 0, usage: usage(1, 1) } })),
        { minute: 30, type: 'ai.turn.paused', sessionId: 'sx', code: 'AI_TOKEN_BUDGET_EXCEEDED', latencyMs: 99_999, payload: { turnId: 'tp', usage: usage(1, 1), tokenBudget: 1 } },
        { minute: 31, type: 'ai.tool.called', sessionId: 'sx', latencyMs: 88_888, payload: { turnId: 't1', name: 'builder.step.read', ok: true } },
        { minute: 32, type: 'ai.turn.finished', sessionId: 'sx', latencyMs: null, payload: { turnId: 'tn', repairs: 0, usage: usage(1, 1) } },
      ],
      'p',
    );
    const res = await owner.get(`${base}/ai/metrics`);
    // n = 20: p50 rank ceil(10) = 10 → 100; p95 rank ceil(19) = 19 → 190.
    expect(res.data.latencyMs).toEqual({ p50: 100, p95: 190, max: 200 });
  });

  it('answers an empty project with zeros and nulls', async () => {
    const { owner, base } = await projectWithOwner();
    const res = await owner.get(`${base}/ai/metrics`);
    expect(res.status).toBe(200);
    expect(res.data).toEqual({
      window: { since: null, until: null },
      sessions: 0,
      messages: 0,
      turns: { total: 0, finished: 0, failed: 0, stopped: 0, paused: 0, successRate: null },
      latencyMs: { p50: null, p95: null, max: null },
      tools: { calls: 0, failed: 0, forbidden: 0, notAllowed: 0 },
      codes: {},
      repairs: 0,
      validationFailures: 0,
      apply: { succeeded: 0, failed: 0, revisionMismatchWarnings: 0, conversion: null },
      tokens: { prompt: 0, completion: 0, total: 0 },
    });
  });

  it('answers a bad window with VALIDATION_FAILED', async () => {
    const { owner, base } = await projectWithOwner();
    for (const query of ['since=last-week', 'until=2025-03-01', 'since=2025-03-02T00:00:00Z&until=2025-03-01T00:00:00Z']) {
      const res = await owner.get(`${base}/ai/metrics?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.error?.code, query).toBe('VALIDATION_FAILED');
    }
  });
});

describe('access', () => {
  it('lets owners and editors read the trail and metrics; viewers get 403 and non-members 404', async () => {
    const { owner, base, member } = await seededProject();
    const editor = await member('editor');
    const viewer = await member('viewer');
    const stranger = await signedInClient('Mallory');
    for (const path of [eventsPath(base), `${base}/ai/metrics`]) {
      expect((await owner.get(path)).status, path).toBe(200);
      expect((await editor.get(path)).status, path).toBe(200);
      const forbidden = await viewer.get(path);
      expect(forbidden.status, path).toBe(403);
      expect(forbidden.error?.code).toBe('FORBIDDEN');
      const hidden = await stranger.get(path);
      expect(hidden.status, path).toBe(404);
      expect(hidden.error?.code).toBe('PROJECT_NOT_FOUND');
    }
    // The audit router shares the /ai prefix with the session router: viewers still list sessions.
    expect((await viewer.get(`${base}/ai/sessions`)).status).toBe(200);
    expect((await stranger.get(`${base}/ai/sessions`)).status).toBe(404);
  });

  it('never shows another project\'s rows, whatever the filter', async () => {
    const { owner, base, otherIds } = await seededProject();
    for (const query of ['limit=200', 'sessionId=s1', 'code=AI_TOOL_FORBIDDEN', 'type=ai.apply.succeeded', 'userId=usr_bob']) {
      const res = await owner.get(eventsPath(base, query));
      for (const event of res.data.items) expect(otherIds, query).not.toContain(event.id);
    }
  });
});
