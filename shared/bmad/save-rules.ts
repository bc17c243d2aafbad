/**
 * What a Builder save refuses: a file the package could not load (import would refuse it), with
 * every reason at once. Parse and schema failures always refuse; beyond them only the rules that
 * make a file ambiguous or unloadable on its own (a graph edge to nowhere, an entry that is no
 * node, duplicate ids, a step whose nodeId is not its node's). Authoring states a half-finished
 * edit passes through (a second start node, a missing default edge, a step section not written
 * yet, a reference to a file not created yet) are reported by the save, not refused.
 */
import { Agent } from './models.ts';
import { checkShape } from './parse-files.ts';
import { errorIssue } from './issues.ts';
import type { ValidationIssue } from './issues.ts';
import { DEFAULT_AGENTS_PATH } from './package.ts';
import { validateGraph, validateStepFile, validateWorkflowMd } from './validate-file.ts';

/** Graph rule codes that make the graph unloadable by themselves. */
export const GRAPH_LOAD_BREAKING_CODES: ReadonlySet<string> = new Set([
  'GRAPH_ENTRY_NOT_FOUND',
  'GRAPH_EDGE_UNKNOWN_NODE',
  'GRAPH_DUPLICATE_NODE_ID',
  'GRAPH_DUPLICATE_EDGE_ID',
]);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function graphSaveRefusals(text: string, filePath: string): ValidationIssue[] {
  const report = validateGraph(text, { filePath });
  // A schema failure already carries the id rules that still apply (validate-file.ts).
  return report.schemaFailed ? report.errors : report.errors.filter((issue) => GRAPH_LOAD_BREAKING_CODES.has(issue.code));
}

export function stepSaveRefusals(markdown: string, filePath: string, nodeId: string): ValidationIssue[] {
  const report = validateStepFile(markdown, { filePath, nodeId });
  return report.schemaFailed ? report.errors : report.errors.filter((issue) => issue.code === 'STEP_NODE_ID_MISMATCH');
}

export function workflowMdSaveRefusals(text: string, filePath: string): ValidationIssue[] {
  const report = validateWorkflowMd(text, { filePath });
  return report.schemaFailed ? report.errors : [];
}

/**
 * One agent about to be written at `index` of agents.json: its shape (name, title, icon, persona…)
 * and that no other agent has its id. Other agents' problems do not block fixing this one.
 */
export function agentSaveRefusals(agent: unknown, index: number, otherIds: readonly string[], filePath = DEFAULT_AGENTS_PATH): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const shape = checkShape(Agent, agent, filePath);
  if (!shape.ok) {
    for (const issue of shape.issues) issues.push({ ...issue, pointer: `/agents/${index}${issue.pointer ?? ''}` });
  }
  const id = isRecord(agent) ? agent.id : undefined;
  if (typeof id === 'string' && otherIds.includes(id)) {
    issues.push(
      errorIssue('AGENT_DUPLICATE_ID', filePath, `Agent id "${id}" is used by more than one agent.`, {
        params: { id },
        pointer: `/agents/${index}/id`,
        hint: 'Give every agent its own id; steps and nodes refer to agents by id.',
      }),
    );
  }
  return issues;
}
