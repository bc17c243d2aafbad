/**
 * Undo of one node or edge of a staged graph, through the real Worker and session object: an added
 * node goes with its edges and step file, a removed node comes back with its edges and step file,
 * an edge is added back or removed, each as a new version in the person's name that revokes older
 * approvals; refused for viewers, during a turn, on a stale version, and when there is nothing to undo.
 */
import { describe, expect, it } from 'vitest';
import { WF, connect, supportDeskProject } from './sessions.ts';
import { finalAnswer, objectRows, send, turnEnd, useScriptedModel, waitFor } from './turns.ts';
import type { ScriptStep } from './scripted-model.ts';
import type { TestClient } from './client.ts';

const GRAPH_KEY = `graph:${WF}`;
const NEW_STEP = `---
schemaVersion: "1.1"
nodeId: "double-check"
type: "step"
title: "Double-check"
---

# Double-check

## Goal

Check the classification once more.

## Instructions

1. Read the ticket again.
`;

async function workflowSession() {
  const project = await supportDeskProject();
  const { owner, base } = project;
  const created = await owner.post(`${base}/ai/sessions`, { targetType: 'workflow', workflowId: WF, mode: 'optimize' });
  expect(created.status).toBe(201);
  const path = `${base}/ai/sessions/${created.data.sessionId}`;
  const graphRes = await owner.get(`${base}/workflows/${WF}`);
  const stored = JSON.parse(graphRes.data.workflow.graphJson as string);
  return { ...project, sessionId: created.data.sessionId as string, path, stored };
}

/** Stage a graph (and optional step files) as the given client; returns the version it made. */
async function stageGraph(client: TestClient, path: string, graph: unknown, steps: Record<string, string> = {}) {
  const operations: unknown[] = [{ op: 'upsert', targetType: 'workflow', target: { workflowId: WF }, payload: { graphJson: graph }, reason: 'graph' }];
  for (const [nodeId, stepMarkdown] of Object.entries(steps)) {
    operations.push({ op: 'upsert', targetType: 'step', target: { workflowId: WF, nodeId }, payload: { stepMarkdown }, reason: 'step' });
  }
  const staged = await client.post(`${path}/stage`, { changeSet: { schemaVersion: '1.0', targetType: 'workflow', mode: 'optimize', operations } });
  expect(staged.status, JSON.stringify(staged.error)).toBe(200);
  return { changeSetId: staged.data.changeSetId as string, contentHash: staged.data.contentHash as string };
}

/** The versions recorded, and the timeline's change.staged events (who made each). */
async function timeline(sessionId: string) {
  const versions = await objectRows(sessionId, 'SELECT version, source, created_by FROM versions ORDER BY version');
  const staged = (await objectRows(sessionId, "SELECT actor, payload FROM events WHERE type = 'change.staged' ORDER BY seq")).map((r) => ({
    actor: JSON.parse(String(r.actor)),
    version: JSON.parse(String(r.payload)).version,
  }));
  return { versions, staged };
}

async function changes(client: TestClient, path: string) {
  const res = await client.get(`${path}/changes`);
  expect(res.status).toBe(200);
  return res.data as { changeSetId: string; files: Array<{ key: string; action: string; before: string | null; after: string | null }> };
}

const clone = <T>(value: T): T => structuredClone(value);

describe('undo one node or edge of a graph diff', () => {
  it('undoing an added node removes it, its edges and its step file, as a new version by that person', async () => {
    const { owner, path, stored, sessionId } = await workflowSession();
    const graph = clone(stored);
    graph.nodes.push({ id: 'double-check', type: 'step', file: 'steps/double-check.md', title: 'Double-check' });
    graph.edges.push({ from: 'classify-issue', to: 'double-check', label: 'unsure' });
    // Another change in the same graph stays: only the node is undone.
    graph.edges.find((e: any) => e.from === 'merge-outcome').label = 'done';
    const v1 = await stageGraph(owner, path, graph, { 'double-check': NEW_STEP });
    expect((await changes(owner, path)).files.map((f) => f.key)).toEqual([GRAPH_KEY, `step:${WF}/double-check`]);

    const undone = await owner.post(`${path}/graph-undo`, { ...v1, workflowId: WF, part: { kind: 'node', id: 'double-check' } });
    expect(undone.status, JSON.stringify(undone.error)).toBe(200);
    expect(undone.data.undone).toEqual({ kind: 'node', id: 'double-check', was: 'added' });
    expect(undone.data.version).toBe(2);

    const after = await changes(owner, path);
    expect(after.changeSetId).toBe(undone.data.changeSetId);
    expect(after.files.map((f) => f.key)).toEqual([GRAPH_KEY]);
    const draft = JSON.parse(after.files[0]!.after!);
    expect(draft.nodes.map((n: any) => n.id)).toEqual(stored.nodes.map((n: any) => n.id));
    expect(draft.edges.some((e: any) => e.to === 'double-check')).toBe(false);
    expect(draft.edges.find((e: any) => e.from === 'merge-outcome').label).toBe('done');

    const { versions, staged } = await timeline(sessionId);
    expect(versions.at(-1)).toEqual({ version: 2, source: 'undo', created_by: owner.userId });
    expect(staged.at(-1)).toEqual({ version: 2, actor: { kind: 'user', userId: owner.userId, name: 'Owner' } });
  });

  it('undoing a removed node restores it with its stored edges and step file; undoing an added edge drops only it', async () => {
    const { owner, path, stored } = await workflowSession();
    const graph = clone(stored);
    graph.nodes = graph.nodes.filter((n: any) => n.id !== 'ask-customer');
    graph.edges = graph.edges.filter((e: any) => e.from !== 'ask-customer' && e.to !== 'ask-customer');
    graph.edges.push({ from: 'decide-details', to: 'closed', label: 'give-up' });
    const v1 = await owner.post(`${path}/stage`, {
      changeSet: {
        schemaVersion: '1.0',
        targetType: 'workflow',
        mode: 'optimize',
        operations: [
          { op: 'upsert', targetType: 'workflow', target: { workflowId: WF }, payload: { graphJson: graph }, reason: 'drop a node' },
          { op: 'delete', targetType: 'step', target: { workflowId: WF, nodeId: 'ask-customer' }, reason: 'gone' },
        ],
      },
    });
    expect(v1.status, JSON.stringify(v1.error)).toBe(200);
    expect((await changes(owner, path)).files.map((f) => [f.key, f.action])).toEqual([[GRAPH_KEY, 'M'], [`step:${WF}/ask-customer`, 'D']]);

    // An edge whose node is gone cannot come back alone.
    const early = await owner.post(`${path}/graph-undo`, { changeSetId: v1.data.changeSetId, workflowId: WF, part: { kind: 'edge', key: '#e4' } });
    expect(early.status).toBe(409);
    expect(early.error?.code).toBe('AI_UNDO_CONFLICT');

    const node = await owner.post(`${path}/graph-undo`, { changeSetId: v1.data.changeSetId, workflowId: WF, part: { kind: 'node', id: 'ask-customer' } });
    expect(node.status, JSON.stringify(node.error)).toBe(200);
    expect(node.data.undone.was).toBe('removed');
    let draft = JSON.parse((await changes(owner, path)).files.find((f) => f.key === GRAPH_KEY)!.after!);
    expect(draft.nodes.map((n: any) => n.id)).toEqual(stored.nodes.map((n: any) => n.id));
    expect(draft.edges.filter((e: any) => e.from === 'ask-customer' || e.to === 'ask-customer')).toEqual(
      stored.edges.filter((e: any) => e.from === 'ask-customer' || e.to === 'ask-customer'),
    );
    // The step file is the stored one again: no longer among the changes.
    expect((await changes(owner, path)).files.map((f) => f.key)).toEqual([GRAPH_KEY]);

    const edge = await owner.post(`${path}/graph-undo`, { changeSetId: node.data.changeSetId, workflowId: WF, part: { kind: 'edge', key: 'decide-details->closed' } });
    expect(edge.status, JSON.stringify(edge.error)).toBe(200);
    expect(edge.data.undone).toEqual({ kind: 'edge', id: 'decide-details->closed', was: 'added' });
    // Nothing is left: the graph is the stored one, so the draft has no changes.
    expect((await changes(owner, path)).files).toEqual([]);
    expect(edge.data.version).toBe(3);
  });

  it('undoing a removed or relabelled edge brings the stored edge back, and revokes an approval of the older version', async () => {
    const { owner, path, stored, member, sessionId } = await workflowSession();
    const reviewer = await member('editor', 'Rita');
    const graph = clone(stored);
    graph.edges = graph.edges.filter((e: any) => !(e.from === 'resolve-ticket' && e.to === 'merge-outcome'));
    graph.edges.find((e: any) => e.from === 'decide-severity' && e.to === 'escalate-ticket').label = 'urgent';
    const v1 = await stageGraph(owner, path, graph);
    expect((await owner.post(`${path}/validate`)).status).toBe(200);
    expect((await reviewer.post(`${path}/approvals`, v1)).status).toBe(200);

    const removed = await reviewer.post(`${path}/graph-undo`, { ...v1, workflowId: WF, part: { kind: 'edge', key: '#e8' } });
    expect(removed.status, JSON.stringify(removed.error)).toBe(200);
    expect(removed.data.undone.was).toBe('removed');
    const state = await owner.get(path);
    expect(state.data.review.approvals).toEqual([]);
    expect((await timeline(sessionId)).staged.at(-1)).toEqual({ version: 2, actor: { kind: 'user', userId: reviewer.userId, name: 'Rita' } });

    const relabelled = await owner.post(`${path}/graph-undo`, { changeSetId: removed.data.changeSetId, workflowId: WF, part: { kind: 'edge', key: '#e5' } });
    expect(relabelled.status, JSON.stringify(relabelled.error)).toBe(200);
    expect(relabelled.data.undone.was).toBe('changed');
    expect((await changes(owner, path)).files).toEqual([]);
  });

  it('layout-only moves are nothing to undo; a stale version, a viewer and an unparsable graph are refused, changing nothing', async () => {
    const { owner, path, stored, member, sessionId } = await workflowSession();
    const viewer = await member('viewer');
    const graph = clone(stored);
    graph.metadata = { ...graph.metadata, layout: { positions: { closed: { x: 5, y: 6 } } } };
    graph.edges.push({ from: 'receive-ticket', to: 'closed', label: 'spam' });
    const v1 = await stageGraph(owner, path, graph);
    const v2 = await stageGraph(owner, path, { ...graph, nodes: [...graph.nodes] });
    expect(v2.changeSetId).not.toBe(v1.changeSetId);
    const undo = (client: TestClient, body: Record<string, unknown>) => client.post(`${path}/graph-undo`, { workflowId: WF, ...body });

    const stale = await undo(owner, { changeSetId: v1.changeSetId, part: { kind: 'edge', key: 'receive-ticket->closed' } });
    expect(stale.status, JSON.stringify(stale)).toBe(409);
    expect(stale.error?.code).toBe('AI_CHANGESET_STALE');
    expect((await undo(owner, { ...v2, contentHash: 'f'.repeat(64), part: { kind: 'edge', key: 'receive-ticket->closed' } })).error?.code).toBe('AI_CHANGESET_STALE');
    const forbidden = await undo(viewer, { ...v2, part: { kind: 'edge', key: 'receive-ticket->closed' } });
    expect(forbidden.status).toBe(403);
    const layout = await undo(owner, { ...v2, part: { kind: 'node', id: 'closed' } });
    expect(layout.status).toBe(409);
    expect(layout.error?.code).toBe('AI_UNDO_NOTHING');
    expect((await timeline(sessionId)).versions).toHaveLength(2);

    const broken = await owner.post(`${path}/stage`, {
      changeSet: { schemaVersion: '1.0', targetType: 'workflow', mode: 'optimize', operations: [{ op: 'upsert', targetType: 'workflow', target: { workflowId: WF }, payload: { graphJson: '{"nodes": [' }, reason: 'oops' }] },
    });
    expect(broken.status, JSON.stringify(broken.error)).toBe(200);
    const unparsable = await undo(owner, { changeSetId: broken.data.changeSetId, part: { kind: 'node', id: 'closed' } });
    expect(unparsable.status).toBe(422);
    expect(unparsable.error?.code).toBe('AI_UNDO_UNPARSABLE');
    expect(JSON.stringify(unparsable.error)).not.toContain('Unexpected');
  });

  it('is refused while an AI turn runs', async () => {
    const { owner, base, path, sessionId, stored } = await workflowSession();
    const graph = clone(stored);
    graph.edges.push({ from: 'receive-ticket', to: 'closed', label: 'spam' });
    const v1 = await stageGraph(owner, path, graph);
    const held: ScriptStep = { reply: finalAnswer('never sent', 'chat'), delayMs: 60_000 };
    const scripted = await useScriptedModel(owner, [held]);
    const watcher = await connect(owner, base, sessionId);
    const turn = await send(owner, path, 'Look at the graph.');
    expect(turn.status).toBe(202);
    await waitFor(async () => (await scripted.pending()) === 1, 'the model request in flight');

    const refused = await owner.post(`${path}/graph-undo`, { ...v1, workflowId: WF, part: { kind: 'edge', key: 'receive-ticket->closed' } });
    expect(refused.status).toBe(409);
    expect(refused.error?.code).toBe('AI_TURN_IN_PROGRESS');
    expect((await timeline(sessionId)).versions).toHaveLength(1);

    expect((await owner.post(`${path}/stop`)).status).toBeLessThan(300);
    await turnEnd(watcher, turn.data.turnId);
  });
});
