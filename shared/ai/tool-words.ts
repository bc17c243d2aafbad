/**
 * A tool line's words as a key and parameters, carried by the `tool.started` / `tool.finished`
 * events beside the English `summary`, so each viewer's app words the line in its own language
 * (ids, counts and file keys are parameters; the sentence around them is the app's catalogue).
 */
import * as z from 'zod';

export const TOOL_WORD_KEYS = [
  // What a call asks for.
  'context',
  'workflow',
  'step',
  'stepFrom',
  'agent',
  'asset',
  'assetFrom',
  'references',
  'operations',
  'legacySteps',
  'version',
  'latestVersion',
  'everything',
  'notRun',
  // What it answered.
  'staged',
  'stagedNothing',
  'valid',
  'validWithWarnings',
  'invalid',
  'discarded',
  'referencesFound',
  'characters',
  'charactersStaged',
  'failed',
] as const;

export const ToolWordKey = z.enum(TOOL_WORD_KEYS);
export type ToolWordKey = z.infer<typeof ToolWordKey>;

export const ToolWords = z.object({ key: ToolWordKey, values: z.record(z.string(), z.union([z.string(), z.number()])) });
export type ToolWords = z.infer<typeof ToolWords>;
