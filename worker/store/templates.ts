/** What a new, empty workflow or project starts with: a valid two-node package fragment. */
import { newStepFilePath } from '../../shared/bmad/portable-names.ts';

export const EMPTY_AGENTS_JSON = `${JSON.stringify({ schemaVersion: '1.1', agents: [] }, null, 2)}\n`;

export function stepsDir(workflowId: string): string {
  return `workflows/${workflowId}/steps`;
}

/**
 * The file of a new step when the save names none: `<id>.md` with a name every system can unpack
 * (`review:final` → `review_final.md`; the id stays), numbered while `taken` says it is in use.
 */
export function defaultStepPath(workflowId: string, nodeId: string, taken?: (path: string) => boolean): string {
  return newStepFilePath(stepsDir(workflowId), nodeId, taken);
}

export interface WorkflowSeed {
  workflowMd: string;
  graphJson: string;
  steps: Array<{ nodeId: string; path: string; markdown: string }>;
}

function stepMarkdown(nodeId: string, type: 'step' | 'end', title: string, next?: string): string {
  const transitions = next ? `transitions:\n  - to: "${next}"\n    label: "next"\n    isDefault: true\n` : 'transitions: []\n';
  return `---
schemaVersion: "1.1"
nodeId: "${nodeId}"
type: "${type}"
title: "${title}"
inputs: []
outputs: []
${transitions}---

# ${title}

## Goal

${type === 'end' ? 'Close the workflow and summarise what was produced.' : 'Describe what this step achieves.'}

## Instructions

1. ${type === 'end' ? 'Summarise the outputs for the user.' : 'Describe what the agent should do.'}

## Completion

- Append \`${nodeId}\` to \`stepsCompleted\`.
`;
}

export function newWorkflowSeed(workflowId: string, name: string): WorkflowSeed {
  const start = { nodeId: 'start', path: defaultStepPath(workflowId, 'start') };
  const end = { nodeId: 'end', path: defaultStepPath(workflowId, 'end') };
  const graph = {
    schemaVersion: '1.1',
    entryNodeId: 'start',
    nodes: [
      { id: 'start', type: 'step', file: start.path, title: 'Start' },
      { id: 'end', type: 'end', file: end.path, title: 'Finish' },
    ],
    edges: [{ from: 'start', to: 'end', label: 'next' }],
  };
  const workflowMd = `---
schemaVersion: "1.1"
workflowType: "${workflowId}"
currentNodeId: "start"
stepsCompleted: []
variables: {}
decisionLog: []
artifacts: []
---

# ${name}

## Goal

Describe what this workflow achieves.

## Steps Index

- [start](steps/start.md)
- [end](steps/end.md)
`;
  return {
    workflowMd,
    graphJson: `${JSON.stringify(graph, null, 2)}\n`,
    steps: [
      { ...start, markdown: stepMarkdown('start', 'step', 'Start', 'end') },
      { ...end, markdown: stepMarkdown('end', 'end', 'Finish') },
    ],
  };
}
