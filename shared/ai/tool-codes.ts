/**
 * The codes of a tool call's one-line summary (`tool-words.ts`), without zod: the Workbench words
 * tool lines on its first load and must not load the schema library for that.
 */
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

export type ToolRequestCode = (typeof TOOL_REQUEST_CODES)[number];
export type ToolResultCode = (typeof TOOL_RESULT_CODES)[number];
