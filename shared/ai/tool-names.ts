/**
 * The `builder.*` tools offered to the model, by name. `builder.change.apply` is never offered:
 * only a person applies, through the REST apply (a model calling it gets AI_TOOL_FORBIDDEN).
 */
export const READ_TOOL_NAMES = [
  'builder.context.get',
  'builder.workflow.read',
  'builder.step.read',
  'builder.agent.read',
  'builder.asset.read',
  'builder.refs.find',
] as const;

export const CHANGE_TOOL_NAMES = ['builder.change.stage', 'builder.change.validate', 'builder.change.discard'] as const;

export const MODEL_TOOL_NAMES = [...READ_TOOL_NAMES, ...CHANGE_TOOL_NAMES] as const;
export type ModelToolName = (typeof MODEL_TOOL_NAMES)[number];

export const FORBIDDEN_TOOL_NAMES = ['builder.change.apply'] as const;
