/**
 * Which editor page shows a package file or a history object: validation issues (a file path and
 * a JSON pointer) and history entries (an object key) link there. Used by the overview's
 * validation summary, the export problems and the history view.
 */
import { resolve } from '$app/paths';

export interface LinkContext {
  projectId: string;
  /** Workflow ids of the project; a root-level file (single-workflow layout) maps to the default one. */
  workflowIds: readonly string[];
  defaultWorkflowId?: string | undefined;
  /** Agent ids in agents.json order, so `/agents/<index>` finds its agent. */
  agentIds: readonly string[];
}

function workflowHref(projectId: string, workflowId: string, query: Record<string, string> = {}): string {
  const search = new URLSearchParams(query).toString();
  return resolve('/projects/[projectId]/workflows/[workflowId]', { projectId, workflowId }) + (search ? `?${search}` : '');
}

export function agentHref(projectId: string, agentId?: string): string {
  return agentId === undefined
    ? resolve('/projects/[projectId]/agents', { projectId })
    : resolve('/projects/[projectId]/agents/[agentId]', { projectId, agentId });
}

export function assetHref(projectId: string, path?: string): string {
  const base = resolve('/projects/[projectId]/assets', { projectId });
  return path === undefined ? base : `${base}?path=${encodeURIComponent(path)}`;
}

export function historyHref(projectId: string, objectKey?: string): string {
  const base = resolve('/projects/[projectId]/history', { projectId });
  return objectKey === undefined ? base : `${base}?objectKey=${encodeURIComponent(objectKey)}`;
}

/** The editor of a file of the package, at the place a pointer names when it can. */
export function editorHrefForFile(ctx: LinkContext, filePath: string, pointer?: string): string | undefined {
  const { projectId } = ctx;
  if (filePath === 'bmad.json') return resolve('/projects/[projectId]/settings', { projectId });
  if (filePath.startsWith('assets/')) return assetHref(projectId, filePath);
  if (filePath === 'agents.json' || filePath.endsWith('/agents.json')) {
    const index = /^\/agents\/(\d+)/.exec(pointer ?? '')?.[1];
    const agentId = index === undefined ? undefined : ctx.agentIds[Number(index)];
    return agentHref(projectId, agentId);
  }
  const multi = /^workflows\/([^/]+)\/(.+)$/.exec(filePath);
  const workflowId = multi ? multi[1] : (ctx.defaultWorkflowId ?? (ctx.workflowIds.length === 1 ? ctx.workflowIds[0] : undefined));
  if (workflowId === undefined || !ctx.workflowIds.includes(workflowId)) return undefined;
  const rest = multi ? multi[2]! : filePath;
  if (rest === 'workflow.md') return workflowHref(projectId, workflowId, { file: 'workflow-md' });
  if (rest === 'workflow.graph.json') {
    const node = /^\/nodes\/(\d+)/.exec(pointer ?? '')?.[1];
    return workflowHref(projectId, workflowId, node === undefined ? { file: 'graph' } : { nodeIndex: node });
  }
  if (/\.md$/iu.test(rest)) return workflowHref(projectId, workflowId, { step: filePath });
  return workflowHref(projectId, workflowId);
}

/** The editor of a history object key (`step:<wid>/<node>`, `agent:<id>`, `asset:<path>`, …). */
export function editorHrefForObjectKey(projectId: string, objectKey: string): string | undefined {
  const colon = objectKey.indexOf(':');
  const kind = objectKey.slice(0, colon);
  const rest = objectKey.slice(colon + 1);
  if (colon < 0 || rest === '') return undefined;
  switch (kind) {
    case 'workflow':
      return workflowHref(projectId, rest, { file: 'workflow-md' });
    case 'graph':
      return workflowHref(projectId, rest, { file: 'graph' });
    case 'workflow-name':
    case 'workflow-default':
      return workflowHref(projectId, rest);
    case 'step': {
      const slash = rest.indexOf('/');
      return slash > 0 ? workflowHref(projectId, rest.slice(0, slash), { node: rest.slice(slash + 1) }) : undefined;
    }
    case 'agent':
      return agentHref(projectId, rest);
    case 'asset':
      return assetHref(projectId, rest);
    default:
      return undefined;
  }
}
