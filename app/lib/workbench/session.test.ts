import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Role } from '../../../shared/api/common.ts';
import type { SessionEvent } from '../../../shared/ai/events.ts';
import type { AiTarget } from '../ai-target.ts';
import { accepted, event, finished, usage } from './events.fixture.ts';
import { createSessionsApi } from './sessions-api.ts';
import { WorkbenchSession } from './session.svelte.ts';
import { matchesTarget } from './session-target.ts';
import { fakeApi, fakeSocket, type FakeApi } from './transport.fixture.ts';
import type { ChangesView, SessionStateView, SessionSummaryView } from './types.ts';
import { computeImpact } from '../../../shared/ai/change-impact.ts';

const STEP: AiTarget = { targetType: 'step', mode: 'optimize', workflowId: 'wf', targetId: 'n1' };
const BASE = '/projects/p1/ai/sessions';

function summary(sessionId: string, extra: Partial<SessionSummaryView> = {}): SessionSummaryView {
  return {
    sessionId,
    workflowId: 'wf',
    targetType: 'step',
    targetId: 'n1',
    mode: 'optimize',
    status: 'active',
    createdBy: 'u_other',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}

function stateView(sessionId: string, extra: Partial<SessionStateView> = {}): SessionStateView {
  return {
    sessionId,
    meta: { sessionId, projectId: 'p1', workflowId: 'wf', targetType: 'step', targetId: 'n1', mode: 'optimize', createdBy: 'u_me', createdAt: '2026-01-01T00:00:00.000Z' },
    status: 'active',
    lastSeq: 0,
    latestSuggestion: null,
    validation: null,
    pendingEdits: false,
    review: { threads: [], approvals: [], requiredApprovals: 0, countedApprovals: 0, changeRequests: [], override: null, authors: [], block: null },
    messages: { items: [], nextCursor: null },
    turn: null,
    usage: { session: usage(0, 0), tokenBudget: null },
    ...extra,
  };
}

const NO_CHANGES: ChangesView = { changeSetId: null, version: null, contentHash: 'h0', files: [], impact: computeImpact([]) };

/** A server with one session `s1` for the target, or none. */
function server(sessions: SessionSummaryView[]): FakeApi {
  const api = fakeApi();
  api.on(`GET ${BASE}?status=active`, { data: { sessions } });
  for (const s of sessions) {
    api.on(`GET ${BASE}/${s.sessionId}`, { data: stateView(s.sessionId) });
    api.on(`GET ${BASE}/${s.sessionId}/changes`, { data: NO_CHANGES });
  }
  return api;
}

function workbench(api: FakeApi, options: { role?: Role; userId?: string; target?: AiTarget } = {}) {
  const socket = fakeSocket();
  const session = new WorkbenchSession({
    projectId: 'p1',
    target: options.target ?? STEP,
    role: options.role ?? 'editor',
    userId: options.userId ?? 'u_me',
    api: createSessionsApi(api.fetch),
    connect: socket.connect,
    pollMs: 5_000,
  });
  const events = (list: SessionEvent[], replay = false) => socket.receive({ type: 'events', events: list, replay, done: true });
  return { session, socket, events };
}

afterEach(() => vi.useRealTimers());

describe('matchesTarget', () => {
  it('matches a session of exactly this target and mode', () => {
    expect(matchesTarget(summary('s'), STEP)).toBe(true);
    expect(matchesTarget(summary('s', { mode: 'create' }), STEP)).toBe(false);
    expect(matchesTarget(summary('s', { targetId: 'n2' }), STEP)).toBe(false);
    expect(matchesTarget(summary('s', { workflowId: 'other' }), STEP)).toBe(false);
    const workflow: AiTarget = { targetType: 'workflow', mode: 'optimize', workflowId: 'wf', targetId: 'wf' };
    expect(matchesTarget(summary('s', { targetType: 'workflow', targetId: 'wf' }), workflow)).toBe(true);
    const agent: AiTarget = { targetType: 'agent', mode: 'create' };
    expect(matchesTarget(summary('s', { targetType: 'agent', mode: 'create', workflowId: null, targetId: null }), agent)).toBe(true);
  });
});

describe('WorkbenchSession: finding the session', () => {
  it('attaches to the active session of this target, yours before others’, and connects to it', async () => {
    const api = server([
      summary('s_other_target', { targetId: 'n2' }),
      summary('s_theirs'),
      summary('s_mine', { createdBy: 'u_me' }),
    ]);
    const { session, socket } = workbench(api);
    await session.open();
    expect(session.phase).toBe('ready');
    expect(session.sessionId).toBe('s_mine');
    expect(session.view?.sessionId).toBe('s_mine');
    expect(socket.opened).toEqual([{ projectId: 'p1', sessionId: 's_mine' }]);
  });

  it('waits when there is none, and looks again until someone starts one', async () => {
    vi.useFakeTimers();
    const api = server([]);
    const { session, socket } = workbench(api);
    await session.open();
    expect(session.phase).toBe('none');
    expect(socket.opened).toEqual([]);

    api.on(`GET ${BASE}?status=active`, { data: { sessions: [summary('s_new')] } });
    api.on(`GET ${BASE}/s_new`, { data: stateView('s_new') });
    api.on(`GET ${BASE}/s_new/changes`, { data: NO_CHANGES });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(api.calls(`GET ${BASE}?status=active`)).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await vi.waitFor(() => expect(session.phase).toBe('ready'));
    expect(session.sessionId).toBe('s_new');
  });

  it('fails with the server’s error when the list cannot be read', async () => {
    const api = fakeApi();
    api.on(`GET ${BASE}?status=active`, { status: 403, error: { code: 'FORBIDDEN', message: 'Not a member.' } });
    const { session } = workbench(api);
    await session.open();
    expect(session.phase).toBe('failed');
    expect(session.errorOf('load')).toEqual({ code: 'FORBIDDEN', message: 'Not a member.' });
  });
});

describe('WorkbenchSession: sending', () => {
  it('starts the session with the first message, then shows the message until its turn arrives', async () => {
    const api = server([]);
    api.on(`POST ${BASE}`, { status: 201, data: { sessionId: 's1' } });
    api.on(`GET ${BASE}/s1`, { data: stateView('s1') });
    api.on(`GET ${BASE}/s1/changes`, { data: NO_CHANGES });
    api.on(`POST ${BASE}/s1/messages`, { status: 202, data: { turnId: 't1', seq: 1, status: 'running' } });
    const { session, events } = workbench(api);
    await session.open();

    expect(await session.send('  Tighten step one  ', false)).toBe(true);
    expect(api.calls(`POST ${BASE}`)[0]?.body).toEqual({ targetType: 'step', mode: 'optimize', workflowId: 'wf', targetId: 'n1' });
    expect(api.calls(`POST ${BASE}/s1/messages`)[0]?.body).toEqual({ content: 'Tighten step one' });
    expect(session.conversation.map((i) => (i.kind === 'turn' ? [i.turnId, i.content, i.activity === null] : i.kind))).toEqual([['t1', 'Tighten step one', true]]);
    expect([session.turnOpen, session.canSend, session.canStop]).toEqual([true, false, false]);

    // The new socket's resume replay brings the turn: the message is shown once, from the events.
    events([accepted(1, 'Tighten step one')], true);
    expect(session.conversation).toHaveLength(1);
    expect(session.conversation[0]).toMatchObject({ turnId: 't1', activity: { turnId: 't1' } });
    expect(session.canStop).toBe(true);
  });

  it('sends suggest-only for a workflow target only', async () => {
    const workflow: AiTarget = { targetType: 'workflow', mode: 'optimize', workflowId: 'wf', targetId: 'wf' };
    for (const [target, expected] of [
      [STEP, { content: 'x' }],
      [workflow, { content: 'x', suggestOnly: true }],
    ] as const) {
      const api = server([summary('s1', { createdBy: 'u_me', targetType: target.targetType, targetId: target.targetId ?? null })]);
      api.on(`POST ${BASE}/s1/messages`, { status: 202, data: { turnId: 't1', seq: 1, status: 'running' } });
      const { session } = workbench(api, { target });
      await session.open();
      await session.send('x', true);
      expect(api.calls(`POST ${BASE}/s1/messages`)[0]?.body).toEqual(expected);
    }
  });

  it('lets a viewer watch but not send, and sends nothing blank', async () => {
    const api = server([summary('s1')]);
    const viewer = workbench(api, { role: 'viewer' });
    await viewer.session.open();
    expect(viewer.session.canSend).toBe(false);
    expect(await viewer.session.send('Hello', false)).toBe(false);
    const editor = workbench(api);
    await editor.session.open();
    expect(await editor.session.send('   ', false)).toBe(false);
    expect(api.seen.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('keeps a refused message’s error for the composer', async () => {
    const api = server([summary('s1')]);
    api.on(`POST ${BASE}/s1/messages`, { status: 409, error: { code: 'AI_TURN_IN_PROGRESS', message: 'A turn is running.' } });
    const { session } = workbench(api);
    await session.open();
    expect(await session.send('Again', false)).toBe(false);
    expect(session.errorOf('send')?.code).toBe('AI_TURN_IN_PROGRESS');
    expect(session.conversation).toEqual([]);
  });
});

describe('WorkbenchSession: events, stop and apply', () => {
  it('reads the stored view again when an event makes it stale, not on every delta', async () => {
    const api = server([summary('s1')]);
    const { session, events } = workbench(api);
    await session.open();
    const reads = () => api.calls(`GET ${BASE}/s1`).length;
    expect(reads()).toBe(1);
    // The read starts synchronously when an event asks for it, so counting right away is exact.
    events([accepted(1, 'x'), event(2, 'llm.requested', { iteration: 1, messages: 2, tools: 1 }), event(3, 'assistant.delta', { iteration: 1, text: 'y' })]);
    expect(reads()).toBe(1);
    events([finished(4, 'Done.')]);
    expect(reads()).toBe(2);
    expect(api.calls(`GET ${BASE}/s1/changes`)).toHaveLength(2);
  });

  it('does not read again for the part of a resume replay the stored view already holds', async () => {
    const api = server([summary('s1')]);
    api.on(`GET ${BASE}/s1`, { data: stateView('s1', { lastSeq: 2 }) });
    const { session, events } = workbench(api);
    await session.open();
    const reads = () => api.calls(`GET ${BASE}/s1`).length;
    events([accepted(1, 'x'), finished(2, 'Done.')], true);
    expect(reads()).toBe(1);
    events([accepted(3, 'y', 't2'), finished(4, 'Done again.', 't2')], true);
    expect(reads()).toBe(2);
  });

  it('runs one read at a time: refreshes asked for during one become one more', async () => {
    const api = server([summary('s1')]);
    const { session } = workbench(api);
    await session.open();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    api.on(`GET ${BASE}/s1`, async () => {
      await held;
      return { data: stateView('s1') };
    });
    const first = session.refresh();
    void session.refresh();
    void session.refresh();
    release();
    await first;
    await session.refresh();
    // open() read once; then the held read, one more for the two asked during it, and the last one.
    expect(api.calls(`GET ${BASE}/s1`)).toHaveLength(4);
  });

  it('stops over HTTP for an editor, and on the socket for the creator who is a viewer now', async () => {
    const api = server([summary('s1')]);
    api.on(`POST ${BASE}/s1/stop`, { data: { turnId: 't1', status: 'stopped' } });
    const editor = workbench(api);
    await editor.session.open();
    editor.events([accepted(1, 'x')], true);
    await editor.session.stop();
    expect(api.calls(`POST ${BASE}/s1/stop`)).toHaveLength(1);

    const creator = workbench(api, { role: 'viewer', userId: 'u_me' });
    await creator.session.open();
    creator.socket.status('open');
    creator.events([accepted(1, 'x')], true);
    expect(creator.session.canStop).toBe(true);
    await creator.session.stop();
    expect(creator.socket.sent).toEqual([{ type: 'stop' }]);
    expect(api.calls(`POST ${BASE}/s1/stop`)).toHaveLength(1);

    const stranger = workbench(api, { role: 'viewer', userId: 'u_someone' });
    await stranger.session.open();
    stranger.events([accepted(1, 'x')], true);
    expect(stranger.session.canStop).toBe(false);
  });

  it('applies only the validated version the diff shows, confirmed as a manual apply', async () => {
    const api = server([summary('s1')]);
    const suggestion = {
      changeSetId: 'cs2',
      version: 2,
      contentHash: 'hash2',
      source: 'ai' as const,
      status: 'validated' as const,
      files: [{ key: 'step:wf/n1', action: 'M' as const }],
      changeSet: null,
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    const validation = { valid: true, schemaFailed: false, errors: [], warnings: [], status: 'validated' as const, meta: { allowWrite: false as const, errorCount: 0, warningCount: 0 } };
    api.on(`GET ${BASE}/s1`, { data: stateView('s1', { latestSuggestion: suggestion, validation }) });
    // The diff still shows version 1: applying now would apply something nobody has seen.
    api.on(`GET ${BASE}/s1/changes`, { data: { ...NO_CHANGES, changeSetId: 'cs1', files: [{ key: 'step:wf/n1', action: 'M', before: 'a', after: 'b' }] } });
    api.on(`POST ${BASE}/s1/apply`, {
      data: { applied: true, sessionStatus: 'applied', changeSetId: 'cs2', newRevision: { workflowRevision: 5, agentsRevision: 1, assetsRevision: 1 }, warnings: [] },
    });
    const { session } = workbench(api);
    await session.open();
    expect(session.canApply).toBe(false);
    await session.apply();
    expect(api.calls(`POST ${BASE}/s1/apply`)).toEqual([]);

    api.on(`GET ${BASE}/s1/changes`, { data: { ...NO_CHANGES, changeSetId: 'cs2', files: [{ key: 'step:wf/n1', action: 'M', before: 'a', after: 'c' }] } });
    await session.refresh();
    expect(session.canApply).toBe(true);
    await session.apply();
    expect(api.calls(`POST ${BASE}/s1/apply`).map((r) => r.body)).toEqual([{ changeSetId: 'cs2', contentHash: 'hash2', confirmSource: 'ui_manual_apply' }]);
    expect(session.applyResult?.changeSetId).toBe('cs2');
  });

  it('lists the others here once each, never yourself', async () => {
    const api = server([summary('s1')]);
    const { session, socket } = workbench(api);
    await session.open();
    const entry = (connectionId: string, userId: string) => ({ connectionId, userId, name: userId, role: 'editor' as const, file: null, since: '2026-01-01T00:00:00.000Z' });
    socket.receive({ type: 'presence', present: [entry('c1', 'u_me'), entry('c2', 'u_ed'), entry('c3', 'u_ed'), entry('c4', 'u_vi')] });
    expect(session.others.map((o) => o.connectionId)).toEqual(['c2', 'c4']);
  });
});
