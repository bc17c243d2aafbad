/**
 * What a canvas edit may not do to a workflow graph, checked by the Builder before it sends the
 * edit and by the Worker before it stores it: the new graph must parse and satisfy the schema,
 * the start step must stay, every edge must join two steps, and step files must come and go
 * with their nodes. Returns every problem, not the first.
 */
import { WorkflowGraph } from './models.ts';

/** What kind of problem it is, so a reader can put it in their own language from `params`. */
export type GraphEditProblemCode =
  | 'notJson'
  | 'schema'
  | 'duplicateId'
  | 'startDeleted'
  | 'startMissing'
  | 'edgeFromMissing'
  | 'edgeToMissing'
  | 'noStepFileToDelete'
  | 'stepFileInGraph'
  | 'stepFileExists'
  | 'stepFileNeedsNode'
  | 'stepPathNotAllowed'
  | 'stepPathTaken';

export interface GraphEditProblem {
  code: GraphEditProblemCode;
  /** The values its words name (ids, labels, paths), for a translation of `message`. */
  params: Record<string, string>;
  /** In English (the Worker's answer and the app's English words). */
  message: string;
  /** JSON pointer into the new graph, when the problem is in it. */
  pointer?: string;
}

export interface GraphEditCheck {
  /** The stored graph text (may itself be broken). */
  before: string;
  /** The proposed graph text. */
  after: string;
  /** Node ids and paths of the stored step files. */
  storedSteps: ReadonlyArray<{ nodeId: string; path: string }>;
  createSteps: readonly string[];
  deleteSteps: readonly string[];
}

/** A step path must stay inside the package: relative, no `.`/`..` segments, ends in `.md` (any letter case). */
export function isSafeStepPath(path: string): boolean {
  return /^[A-Za-z0-9._/-]+\.md$/iu.test(path) && !path.split('/').some((seg) => seg === '' || seg === '.' || seg === '..');
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

interface Shape {
  entryNodeId?: unknown;
  nodes?: Array<{ id?: unknown }>;
}

export function graphEditProblems(check: GraphEditCheck): GraphEditProblem[] {
  const parsedAfter = parse(check.after);
  if (parsedAfter === undefined) return [{ code: 'notJson', params: {}, message: 'The new graph is not valid JSON.' }];
  const problems: GraphEditProblem[] = [];
  const result = WorkflowGraph.safeParse(parsedAfter);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const pointer = `/${issue.path.map(String).join('/')}`;
      problems.push({ code: 'schema', params: { pointer, detail: issue.message }, message: `The graph would not satisfy the schema at ${pointer}: ${issue.message}`, pointer });
    }
    return problems;
  }
  const graph = result.data;
  const ids = new Set(graph.nodes.map((n) => n.id));
  const seen = new Set<string>();
  graph.nodes.forEach((node, i) => {
    if (seen.has(node.id)) problems.push({ code: 'duplicateId', params: { id: node.id }, message: `Two steps have the id “${node.id}”.`, pointer: `/nodes/${i}/id` });
    seen.add(node.id);
  });

  const before = parse(check.before) as Shape | undefined;
  const oldEntry = typeof before?.entryNodeId === 'string' ? before.entryNodeId : undefined;
  const oldIds = new Set((Array.isArray(before?.nodes) ? before.nodes : []).map((n) => n?.id).filter((id) => typeof id === 'string'));
  if (oldEntry !== undefined && oldIds.has(oldEntry) && !ids.has(oldEntry)) {
    problems.push({
      code: 'startDeleted',
      params: { id: oldEntry },
      message: `“${oldEntry}” is the start step and cannot be deleted. Make another step the start first.`,
      pointer: '/entryNodeId',
    });
  } else if (!ids.has(graph.entryNodeId)) {
    problems.push({ code: 'startMissing', params: { id: graph.entryNodeId }, message: `The start step “${graph.entryNodeId}” is not a step of the graph.`, pointer: '/entryNodeId' });
  }
  graph.edges.forEach((edge, i) => {
    for (const end of ['from', 'to'] as const) {
      if (!ids.has(edge[end])) {
        problems.push({
          code: end === 'from' ? 'edgeFromMissing' : 'edgeToMissing',
          params: { label: edge.label, id: edge[end] },
          message: `The edge “${edge.label}” ${end === 'from' ? 'starts at' : 'points to'} “${edge[end]}”, which is not a step of the graph.`,
          pointer: `/edges/${i}/${end}`,
        });
      }
    }
  });

  const stored = new Map(check.storedSteps.map((s) => [s.nodeId, s.path]));
  const storedPaths = new Set(check.storedSteps.filter((s) => !check.deleteSteps.includes(s.nodeId)).map((s) => s.path));
  for (const nodeId of check.deleteSteps) {
    if (!stored.has(nodeId)) problems.push({ code: 'noStepFileToDelete', params: { id: nodeId }, message: `There is no step file for “${nodeId}” to delete.` });
    else if (ids.has(nodeId)) problems.push({ code: 'stepFileInGraph', params: { id: nodeId }, message: `The step file of “${nodeId}” cannot be deleted while its step is in the graph.` });
  }
  for (const nodeId of check.createSteps) {
    const node = graph.nodes.find((n) => n.id === nodeId);
    if (stored.has(nodeId) && !check.deleteSteps.includes(nodeId)) {
      problems.push({ code: 'stepFileExists', params: { id: nodeId }, message: `A step file for “${nodeId}” already exists.` });
    } else if (!node) {
      problems.push({ code: 'stepFileNeedsNode', params: { id: nodeId }, message: `A step file for “${nodeId}” needs a step of that id in the graph.` });
    } else if (!isSafeStepPath(node.file)) {
      problems.push({ code: 'stepPathNotAllowed', params: { path: node.file }, message: `The step file path “${node.file}” is not allowed: use a relative path ending in .md.` });
    } else if (storedPaths.has(node.file)) {
      problems.push({ code: 'stepPathTaken', params: { path: node.file }, message: `The file ${node.file} already belongs to another step.` });
    }
  }
  return problems;
}
