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

/**
 * How a model's spelling of a tool name is compared with ours. Models write the name they were
 * given (`builder_step_read`), the dotted one of the prompt (`builder.step.read`), or a variant
 * their chat template leaves behind: a `functions.` or `tools.` prefix (Hermes and harmony-style
 * templates), other case, `-`, `/` or `:` for the separators, white space around it. All of them
 * read as the same key; a name that is none of ours stays unknown.
 */
export function toolNameKey(name: string): string {
  return name
    .trim()
    .replace(/^(?:functions?|tools?)[.:/]/i, '')
    .toLowerCase()
    .replace(/[.\-/:\s]+/g, '_');
}

/** The one of `names` that `spelled` means, or null. */
export function matchToolName<T extends string>(spelled: string, names: readonly T[]): T | null {
  const key = toolNameKey(spelled);
  return names.find((name) => toolNameKey(name) === key) ?? null;
}
