/**
 * Undo of one node or one edge of a staged graph back to the stored package (issue 16, item 3),
 * as a new version by the person who did it, revoking approvals of older versions like any edit.
 * Undoing an added node also removes its edges and drops its step file from the draft; undoing a
 * removed node brings it back with its stored edges (those whose other end is in the draft), its
 * position and its stored step file. Editors and owners only; refused while a turn runs or an
 * apply is under way, and on a version that is not the latest.
 */
import { ApiError } from '../../shared/api-error.ts';
import type { GraphUndoInput } from '../../shared/api/ai-sessions.ts';
import { diffGraphShapes, edgeKeys, readGraph, sameValue, type GraphShape } from '../../shared/ai/semantic-diff/index.ts';
import type { Actor, GraphUndoResult } from '../../shared/ai/session-rpc.ts';

export type { GraphUndoResult };
import { sha256Hex } from '../../shared/hash.ts';
import { mirrorVersion } from './apply/d1-records.ts';
import type { CoEdit } from './co-edit.ts';
import { contentOf, createEffectiveView, revisionOf } from './overlay/effective-view.ts';
import { requireDraftIdle, staleOrMissing, type SessionHost } from './session-host.ts';

type Obj = Record<string, unknown>;


function isRecord(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readOrRefuse(text: string | null, side: string): GraphShape {
  if (text === null) throw new ApiError('AI_UNDO_NOTHING', { message: `This workflow has no ${side} graph to undo against.` });
  const read = readGraph(text);
  if (!read.ok) throw new ApiError('AI_UNDO_UNPARSABLE', { hints: ['Open the text diff to see where the graph breaks.'] });
  return read.shape;
}

/** The draft graph with `positions.<id>` set from the stored graph, or removed. */
function withPosition(graph: Obj, id: string, stored: Obj): void {
  const position = isRecord(stored.metadata) && isRecord(stored.metadata.layout) && isRecord(stored.metadata.layout.positions) ? stored.metadata.layout.positions[id] : undefined;
  const metadata = isRecord(graph.metadata) ? graph.metadata : undefined;
  const positions = metadata && isRecord(metadata.layout) && isRecord(metadata.layout.positions) ? metadata.layout.positions : undefined;
  if (positions && position === undefined) delete positions[id];
  else if (positions) positions[id] = position;
}

/** The draft graph after reverting one part, and the step files to drop from the overlay. */
function revert(draft: GraphShape, stored: GraphShape, input: GraphUndoInput): { graph: Obj; unstage: string[]; was: GraphUndoResult['undone']['was']; id: string } {
  const graph = structuredClone(draft.graph);
  const nodes = graph.nodes as Obj[];
  let edges = graph.edges as Obj[];
  const diff = diffGraphShapes(stored, draft);
  const stepKey = (id: string) => `step:${input.workflowId}/${id}`;
  if (input.part.kind === 'node') {
    const id = input.part.id;
    const part = diff.nodes.find((n) => n.id === id);
    if (!part || part.status === 'unchanged') throw new ApiError('AI_UNDO_NOTHING');
    if (part.status === 'added') {
      graph.nodes = nodes.filter((n) => n.id !== id);
      graph.edges = edges.filter((e) => e.from !== id && e.to !== id);
      withPosition(graph, id, stored.graph);
      return { graph, unstage: [stepKey(id)], was: 'added', id };
    }
    const storedNode = stored.nodes.get(id)!;
    if (part.status === 'changed') {
      graph.nodes = nodes.map((n) => (n.id === id ? structuredClone(storedNode) : n));
      return { graph, unstage: [], was: 'changed', id };
    }
    // Removed: the node at its stored place among the draft's nodes, with its stored edges.
    const storedOrder = [...stored.nodes.keys()];
    const after = storedOrder.slice(0, storedOrder.indexOf(id)).reverse().find((n) => draft.nodes.has(n));
    const at = after === undefined ? 0 : nodes.findIndex((n) => n.id === after) + 1;
    graph.nodes = [...nodes.slice(0, at), structuredClone(storedNode), ...nodes.slice(at)];
    const present = new Set([...draft.nodes.keys(), id]);
    for (const edge of stored.edges.values()) {
      const touches = edge.from === id || edge.to === id;
      if (touches && present.has(String(edge.from)) && present.has(String(edge.to)) && !edges.some((e) => sameValue(e, edge))) edges = [...edges, structuredClone(edge)];
    }
    graph.edges = edges;
    withPosition(graph, id, stored.graph);
    return { graph, unstage: [stepKey(id)], was: 'removed', id };
  }
  const key = input.part.key;
  const part = diff.edges.find((e) => e.key === key);
  if (!part || part.status === 'unchanged') throw new ApiError('AI_UNDO_NOTHING');
  const keys = edgeKeys(edges);
  if (part.status === 'added') {
    graph.edges = edges.filter((_, i) => keys[i] !== key);
  } else if (part.status === 'changed') {
    graph.edges = edges.map((e, i) => (keys[i] === key ? structuredClone(stored.edges.get(key)!) : e));
  } else {
    const edge = stored.edges.get(key)!;
    const missing = [edge.from, edge.to].map(String).filter((n) => !draft.nodes.has(n));
    if (missing.length > 0) {
      throw new ApiError('AI_UNDO_CONFLICT', {
        message: `This edge connects ${missing.map((n) => `"${n}"`).join(' and ')}, which the draft removed.`,
        hints: ['Undo the removed node first; its stored edges come back with it.'],
      });
    }
    graph.edges = [...edges, structuredClone(edge)];
  }
  return { graph, unstage: [], was: part.status, id: key };
}

export async function undoGraphPart(host: SessionHost, edits: CoEdit, actor: Actor, input: GraphUndoInput): Promise<GraphUndoResult> {
  requireDraftIdle(host, actor, 'undo');
  // Pending co-edits become their own version first, so the version named is compared with what is really there.
  const latest = await edits.flushEdits();
  if (!latest || latest.id !== input.changeSetId) staleOrMissing(host.versions, input.changeSetId, latest);
  if (input.contentHash !== undefined && input.contentHash !== latest.contentHash) {
    throw new ApiError('AI_CHANGESET_STALE', { message: 'The content you saw is not the content of this version.' });
  }
  const graphKey = `graph:${input.workflowId}`;
  if (!host.overlay.entry(graphKey)) throw new ApiError('AI_UNDO_NOTHING', { message: 'This workflow graph has no staged change.' });
  const ctx = await host.context();
  const draftView = createEffectiveView(ctx.baseline, host.overlay.entries());
  const stored = readOrRefuse(contentOf(ctx.baseline.pkg, graphKey), 'stored');
  const draft = readOrRefuse(contentOf(draftView.pkg, graphKey), 'staged');
  const { graph, unstage, was, id } = revert(draft, stored, input);
  const storedText = contentOf(ctx.baseline.pkg, graphKey)!;
  const stepsToDrop = unstage.filter((key) => host.overlay.entry(key) !== undefined);
  // Back to the stored graph in everything but layout: the stored file shows through again.
  if (!diffGraphShapes(stored, readOrRefuse(JSON.stringify(graph), 'new')).changed) {
    host.overlay.remove([graphKey, ...stepsToDrop], 'api');
  } else {
    host.overlay.remove(stepsToDrop, 'api');
    host.overlay.stage(
      [{ key: graphKey, deleted: false, content: `${JSON.stringify(graph, null, 2)}\n`, baseRevision: revisionOf(ctx.baseline, graphKey), baseHash: await sha256Hex(storedText) }],
      'api',
    );
  }
  host.requests.addDraftAuthor(actor.userId);
  const view = createEffectiveView(ctx.baseline, host.overlay.entries());
  const version = await edits.recordVersion(view, 'undo', actor, null);
  const validation = edits.validateVersion(ctx, view, version);
  await mirrorVersion(host.db, host.requireMeta(), version, validation);
  return { changeSetId: version.id, version: version.version, contentHash: version.contentHash, files: version.files, undone: { kind: input.part.kind, id, was } };
}
