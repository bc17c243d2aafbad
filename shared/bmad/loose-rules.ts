/**
 * The id rules of a graph or agents.json that failed its schema, checked on whatever parsed: so one
 * validation answers with the schema errors AND the edge to nowhere or the duplicate agent id,
 * instead of one of them per attempt (stage 1 failing stops the rule stages).
 */
import { errorIssue } from './issues.ts';
import type { ValidationIssue } from './issues.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Duplicate node ids, an entry that is no node, edges to nowhere. */
export function looseGraphIdIssues(value: unknown, filePath: string): ValidationIssue[] {
  if (!isRecord(value) || !Array.isArray(value.nodes)) return [];
  const issues: ValidationIssue[] = [];
  const ids = new Set<string>();
  value.nodes.forEach((node, i) => {
    if (!isRecord(node) || typeof node.id !== 'string') return;
    if (ids.has(node.id)) {
      issues.push(errorIssue('GRAPH_DUPLICATE_NODE_ID', filePath, `Node id "${node.id}" is used by more than one node.`, { params: { id: node.id }, pointer: `/nodes/${i}/id` }));
    }
    ids.add(node.id);
  });
  if (typeof value.entryNodeId === 'string' && !ids.has(value.entryNodeId)) {
    issues.push(errorIssue('GRAPH_ENTRY_NOT_FOUND', filePath, `entryNodeId "${value.entryNodeId}" is not the id of any node.`, { params: { id: value.entryNodeId }, pointer: '/entryNodeId' }));
  }
  (Array.isArray(value.edges) ? value.edges : []).forEach((edge, i) => {
    if (!isRecord(edge)) return;
    for (const end of ['from', 'to'] as const) {
      const id = edge[end];
      if (typeof id === 'string' && !ids.has(id)) {
        issues.push(
          errorIssue('GRAPH_EDGE_UNKNOWN_NODE', filePath, `Edge ${i} ${end === 'from' ? 'starts at' : 'leads to'} "${id}", which is not a node.`, {
            params: { edge: i, id },
            pointer: `/edges/${i}/${end}`,
            hint: 'Point the edge at an existing node id, or delete the edge.',
          }),
        );
      }
    }
  });
  return issues;
}

/** Agents sharing an id: `ids[i]` is agent i's id, or undefined where agent i has none to compare. */
export function duplicateAgentIdIssues(ids: ReadonlyArray<string | undefined>, filePath: string): ValidationIssue[] {
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  ids.forEach((id, i) => {
    if (id === undefined) return;
    if (seen.has(id)) {
      issues.push(
        errorIssue('AGENT_DUPLICATE_ID', filePath, `Agent id "${id}" is used by more than one agent.`, {
          params: { id },
          pointer: `/agents/${i}/id`,
          hint: 'Give every agent its own id; steps and nodes refer to agents by id.',
        }),
      );
    }
    seen.add(id);
  });
  return issues;
}

/** Agents sharing an id, in an agents.json that may not satisfy its schema. */
export function looseAgentIdIssues(value: unknown, filePath: string): ValidationIssue[] {
  if (!isRecord(value) || !Array.isArray(value.agents)) return [];
  return duplicateAgentIdIssues(
    value.agents.map((agent) => (isRecord(agent) && typeof agent.id === 'string' ? agent.id : undefined)),
    filePath,
  );
}
