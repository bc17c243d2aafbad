/**
 * Giving a graph node that names no step file one: the node gets a `file` (beside the other
 * nodes' files, named after its id, not taken by any other file) and that file is created, as one
 * canvas edit (one workflow revision). The step inspector offers it for such a node instead of
 * pointing at a path the graph never named. Loaded when it is used (the step rewrite carries `yaml`).
 */
import type { StepView } from '../../shared/api/index.ts';
import { graphEditProblems } from '../../shared/bmad/graph-edit-rules.ts';
import { stepWithGraphTransitions } from '../../shared/bmad/graph-edit-steps.ts';
import type { EditResult } from './graph-change.ts';
import { graphProblemWords } from './graph-edit.ts';
import { t } from './i18n/i18n.svelte.ts';
import './i18n/graph-words.ts';

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The folder the graph's step files are in (its first node's that names one), else `steps`. */
function stepsFolder(nodes: readonly Json[]): string {
  const file = nodes.map((n) => n.file).find((f): f is string => typeof f === 'string' && f.includes('/'));
  return file ? file.slice(0, file.lastIndexOf('/')) : 'steps';
}

/** A path for `nodeId`'s new step file that no node names and no stored step file has. */
export function newStepFilePath(nodes: readonly Json[], steps: readonly StepView[], nodeId: string): string {
  const taken = new Set([...nodes.map((n) => n.file).filter((f): f is string => typeof f === 'string'), ...steps.map((s) => s.path)]);
  const folder = stepsFolder(nodes);
  // Step paths are plain ASCII (isSafeStepPath); an id may hold other characters.
  const name = nodeId.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '') || 'step';
  let path = `${folder}/${name}.md`;
  for (let n = 2; taken.has(path); n += 1) path = `${folder}/${name}-${n}.md`;
  return path;
}

/** The edit that gives node `nodeId` (which names no file) the file `markdown`, or why it cannot. */
export function stepFileChange(graphText: string, steps: readonly StepView[], nodeId: string, markdown: string, label: string): EditResult {
  let graph: unknown;
  try {
    graph = JSON.parse(graphText);
  } catch {
    graph = undefined;
  }
  const nodes = isRecord(graph) && Array.isArray(graph.nodes) ? graph.nodes.filter(isRecord) : [];
  const node = nodes.find((n) => n.id === nodeId);
  if (!isRecord(graph) || !node) return { ok: false, message: t('graph.edit.noStep', { id: nodeId }) };
  const path = newStepFilePath(nodes, steps, nodeId);
  const after = `${JSON.stringify({ ...graph, nodes: (graph.nodes as unknown[]).map((n) => (n === node ? { ...node, file: path } : n)) }, null, 2)}\n`;
  const problems = graphEditProblems({ before: graphText, after, storedSteps: steps, createSteps: [nodeId], deleteSteps: [] });
  if (problems.length > 0) return { ok: false, message: graphProblemWords(problems) };
  const created = { nodeId, path, markdown: stepWithGraphTransitions(after, nodeId, markdown) };
  return { ok: true, change: { label, before: graphText, after, createSteps: [created], deleteSteps: [], updateSteps: [] } };
}
