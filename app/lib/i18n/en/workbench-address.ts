/** English: what is wrong with a workbench address (its query: target type, mode, ids). */
export const workbenchAddress = {
  missing: 'The address has no {{name}}: say {{what}} ({{name}}={{values}}).',
  notOneOf: '"{{input}}" is not a {{name}}; use one of {{values}}.',
  whatTargetType: 'what the AI should work on',
  whatMode: 'whether to create something new or optimize what exists',
  badWorkflowId: '"{{id}}" is not a valid workflow id.',
  workflowNeedsId: 'Optimizing a workflow needs its id: add workflowId=<id>.',
  differentWorkflows: 'targetId "{{targetId}}" and workflowId "{{workflowId}}" name different workflows.',
  stepNeedsWorkflow: 'A step belongs to a workflow: add workflowId=<id>.',
  stepNeedsId: 'Optimizing a step needs its node id: add targetId=<nodeId>.',
  badNodeId: '"{{id}}" is not a valid node id.',
  agentNeedsId: 'Optimizing an agent needs its id: add targetId=<agentId>.',
  badAgentId: '"{{id}}" is not a valid agent id.',
  assetNeedsPath: 'Optimizing an asset needs its path: add targetId=assets/….',
} as const;
