/**
 * A tool call's one-line summary as a code and its values, sent beside the English `summary` of
 * `tool.started` / `tool.finished`, so each viewer's app says it in its own language. Values are
 * names, ids and counts only, like the summary itself.
 */
import * as z from 'zod';

// The codes live apart (tool-codes.ts) for the Workbench's first load, which must not load zod.
export { TOOL_REQUEST_CODES, TOOL_RESULT_CODES, type ToolRequestCode, type ToolResultCode } from './tool-codes.ts';

export const ToolWords = z.object({
  code: z.string().max(40),
  params: z.record(z.string(), z.union([z.string(), z.number()])),
});
export type ToolWords = z.infer<typeof ToolWords>;
