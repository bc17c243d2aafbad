import { describe, expect, it } from 'vitest';
import type { SessionStateView, ChangesView } from './types.ts';
import { computeImpact } from '../../../shared/ai/change-impact.ts';
import { event, OWNER, usage } from './events.fixture.ts';
import {
  appliedRevision,
  appliedText,
  composerKey,
  foldLifecycle,
  leaveHref,
  NO_LIFECYCLE,
  parseSessionFilters,
  sessionFiltersSearch,
  sessionTargetText,
} from './lifecycle.ts';
import { createSessionsApi } from './sessions-api.ts';
import { WorkbenchSession } from './session.svelte.ts';
import { fakeApi, fakeSocket } from './transport.fixture.ts';

const REVISIONS = { workflowRevision: 7, agentsRevision: 2, assetsRevision: 3 };
const BASE = '/projects/p1/ai/sessions';

function applied(seq: number) {
  return event(
    seq,
    'change.applied',
    { version: 2, changeSetId: 'cs_2', newRevision: REVISIONS, warnings: [], files: [{ key: 'step:wf/n1', action: 'M' }] },
    { turnId: null, actor: OWNER },
  );
}

describe('the lifecycle notices', () => {
  it('names the revision of the scope the target lives in', () => {
    expect(appliedRevision(REVISIONS, 'step')).toBe(7);
    expect(appliedRevision(REVISIONS, 'workflow')).toBe(7);
    expect(appliedRevision(REVISIONS, 'agent')).toBe(2);
    expect(appliedRevision(REVISIONS, 'asset')).toBe(3);
  });

  it('folds who applied it as which revision, and who ended it', () => {
    let state = foldLifecycle(NO_LIFECYCLE, applied(5), 'step');
    expect(state.applied).toEqual({ by: 'Olive Owner', revision: 7, version: 2, changeSetId: 'cs_2', objectKey: 'step:wf/n1', at: '2026-01-01T00:00:00.000Z' });
    expect(appliedText(state.applied!)).toBe('Applied by Olive Owner as revision 7');
    state = foldLifecycle(state, event(6, 'session.cancelled', {}, { turnId: null, actor: { kind: 'user', userId: 'u2', name: 'Edith' } }), 'step');
    expect(state.cancelled).toEqual({ by: 'Edith', at: '2026-01-01T00:00:00.000Z' });
    expect(state.applied?.revision).toBe(7);
    expect(appliedText({ by: null, revision: null })).toBe('Applied by a former member');
  });
});

describe('the composer keys', () => {
  it('sends on Enter and types a line on Shift+Enter or while an IME composes', () => {
    expect(composerKey({ key: 'Enter', shiftKey: false })).toBe('send');
    expect(composerKey({ key: 'Enter', shiftKey: true })).toBe('type');
    expect(composerKey({ key: 'Enter', shiftKey: false, isComposing: true })).toBe('type');
    expect(composerKey({ key: 'a', shiftKey: false })).toBe('type');
  });
});

describe('leaving and the sessions page', () => {
  it('returns to the page the person came from, never off the site', () => {
    expect(leaveHref('/projects/p1/workflows/wf?node=n1', '/projects/p1')).toBe('/projects/p1/workflows/wf?node=n1');
    expect(leaveHref('https://evil.example/x', '/projects/p1')).toBe('/projects/p1');
    expect(leaveHref('//evil.example', '/projects/p1')).toBe('/projects/p1');
    expect(leaveHref(undefined, '/projects/p1')).toBe('/projects/p1');
  });

  it('reads and writes the filters, dropping unknown values', () => {
    const filters = parseSessionFilters(new URLSearchParams('state=applied&targetType=step&createdBy=u1'));
    expect(filters).toEqual({ state: 'applied', targetType: 'step', createdBy: 'u1' });
    expect(sessionFiltersSearch(filters)).toBe('state=applied&targetType=step&createdBy=u1');
    expect(parseSessionFilters(new URLSearchParams('state=merged&targetType=db&createdBy=%20'))).toEqual({});
    expect(sessionFiltersSearch({})).toBe('');
  });

  it('says what a session worked on', () => {
    expect(sessionTargetText({ targetType: 'step', workflowId: 'wf', targetId: 'n1', mode: 'optimize' })).toBe('step wf/n1');
    expect(sessionTargetText({ targetType: 'workflow', workflowId: 'wf', targetId: null, mode: 'optimize' })).toBe('workflow wf');
    expect(sessionTargetText({ targetType: 'agent', workflowId: null, targetId: null, mode: 'create' })).toBe('new agent');
  });
});

function stateView(extra: Partial<SessionStateView> = {}): SessionStateView {
  return {
    sessionId: 's1',
    meta: { sessionId: 's1', projectId: 'p1', workflowId: 'wf', targetType: 'step', targetId: 'n1', mode: 'optimize', createdBy: 'u_me', createdAt: '2026-01-01T00:00:00.000Z' },
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

describe('WorkbenchSession: lifecycle', () => {
  it('opens a given session read-only without looking for the active one, and tells who applied it', async () => {
    const api = fakeApi();
    api.on(`GET ${BASE}/s1`, { data: stateView() });
    api.on(`GET ${BASE}/s1/changes`, { data: { changeSetId: null, version: null, contentHash: 'h', files: [], impact: computeImpact([]) } });
    const socket = fakeSocket();
    const session = new WorkbenchSession({
      projectId: 'p1',
      target: { targetType: 'step', mode: 'optimize', workflowId: 'wf', targetId: 'n1' },
      role: 'owner',
      userId: 'u_me',
      api: createSessionsApi(api.fetch),
      connect: socket.connect,
      sessionId: 's1',
      readOnly: true,
    });
    await session.open();
    expect(api.calls(`GET ${BASE}?status=active`)).toHaveLength(0);
    expect(session.sessionId).toBe('s1');
    expect(session.canEdit).toBe(false);
    expect(session.canSend).toBe(false);
    expect(session.canApply).toBe(false);
    socket.receive({ type: 'events', events: [applied(3)], replay: true, done: true });
    expect(session.lifecycle.applied?.by).toBe('Olive Owner');
    expect(session.lifecycle.applied?.revision).toBe(7);
  });

  it('sends the revisions the diff was read at as revisionBase', async () => {
    const api = fakeApi();
    const suggestion = {
      changeSetId: 'cs_1', version: 1, contentHash: 'h1', source: 'ai' as const, status: 'validated' as const, files: [], changeSet: null, createdAt: '2026-01-01T00:00:00.000Z',
    };
    const changes: ChangesView = {
      changeSetId: 'cs_1',
      version: 1,
      contentHash: 'h1',
      files: [{ key: 'step:wf/n1', action: 'M', before: 'a', after: 'b' }],
      impact: computeImpact([]),
      baseline: { moved: [], revisionBase: { workflowRevision: 4, agentsRevision: 1, assetsRevision: 1 } },
    };
    api.on(`GET ${BASE}/s1`, { data: stateView({ latestSuggestion: suggestion, validation: { valid: true, schemaFailed: false, errors: [], warnings: [] } as never }) });
    api.on(`GET ${BASE}/s1/changes`, { data: changes });
    api.on(`POST ${BASE}/s1/apply`, { data: { applied: true, sessionStatus: 'active', changeSetId: 'cs_1', newRevision: REVISIONS, warnings: [] } });
    const socket = fakeSocket();
    const session = new WorkbenchSession({
      projectId: 'p1',
      target: { targetType: 'step', mode: 'optimize', workflowId: 'wf', targetId: 'n1' },
      role: 'owner',
      userId: 'u_me',
      api: createSessionsApi(api.fetch),
      connect: socket.connect,
      sessionId: 's1',
    });
    await session.open();
    expect(session.canApply).toBe(true);
    await session.apply();
    expect(api.calls(`POST ${BASE}/s1/apply`)[0]?.body).toEqual({
      changeSetId: 'cs_1',
      contentHash: 'h1',
      confirmSource: 'ui_manual_apply',
      revisionBase: { workflowRevision: 4, agentsRevision: 1, assetsRevision: 1 },
    });
  });
});
