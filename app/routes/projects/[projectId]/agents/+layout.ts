import type { LayoutLoad } from './$types';
import { createApi } from '../../../../lib/api.ts';
import { agentsOf, readGraphLoosely } from '../../../../lib/workflow-model.ts';

/** Where each agent is used: graph nodes whose agentId names it, across every workflow. */
export interface AgentReference {
  agentId: string;
  workflowId: string;
  workflowName: string;
  nodeId: string;
  title: string;
}

export const load: LayoutLoad = async ({ params, fetch, depends }) => {
  depends('app:agents');
  const api = createApi(fetch);
  const [project, agents, workflows] = await Promise.all([
    api.projects.get(params.projectId),
    api.agents.list(params.projectId),
    api.workflows.list(params.projectId),
  ]);
  const references: AgentReference[] = [];
  if (workflows.ok) {
    const details = await Promise.all(workflows.data.workflows.map((w) => api.workflows.get(params.projectId, w.id)));
    for (const detail of details) {
      if (!detail.ok) continue;
      const { workflow } = detail.data;
      for (const node of readGraphLoosely(workflow.graphJson)?.nodes ?? []) {
        if (node.agentId) references.push({ agentId: node.agentId, workflowId: workflow.id, workflowName: workflow.name, nodeId: node.id, title: node.title || node.id });
      }
    }
  }
  return {
    project,
    agents,
    /** The agents' full definitions, in agents.json order. */
    definitions: agents.ok ? agentsOf(agents.data.agentsJson) : [],
    references,
  };
};
