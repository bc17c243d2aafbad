/**
 * A tool call's one-line summary as a code and its values, sent beside the English `summary` of
 * `tool.started` / `tool.finished`, so each viewer's app says it in its own language. Values are
 * names, ids and counts only, like the summary itself.
 */
import * as z from 'zod';

/** What a call asks for (`tool.started`). */
export const TOOL_REQUEST_CODES = [
  'notRun',
  'sessionContext',
  'workflow',
  'step',
  'stepFrom',
  'agent',
  'asset',
  'assetFrom',
  'references',
  'operations',
  'legacySteps',
  'validateVersion',
  'validateLatest',
  'discardAll',
] as const;

/** What it answered (`tool.finished`). */
export const TOOL_RESULT_CODES = [
  'failed',
  'staged',
  'stagedNothing',
  'valid',
  'invalid',
  'discarded',
  'references',
  'characters',
  'charactersStaged',
] as const;

export const ToolWords = z.object({
  code: z.string().max(40),
  params: z.record(z.string(), z.union([z.string(), z.number()])),
});
export type ToolWords = z.infer<typeof ToolWords>;
export type ToolRequestCode = (typeof TOOL_REQUEST_CODES)[number];
export type ToolResultCode = (typeof TOOL_RESULT_CODES)[number];
