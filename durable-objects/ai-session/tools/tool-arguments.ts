/**
 * Reading a `builder.*` tool's arguments as real models send them: leniently
 * (shared/ai/lenient-input.ts; optional fields sent blank are left out), a required `workflowId`
 * sent blank or left out read as the project's only workflow when it has exactly one, and, when the
 * arguments still do not fit, a refusal the model can correct itself from: each wrong field, what it
 * sent there and what the field wants (AI_TOOL_ARGUMENTS_INVALID; a tool that failed is another matter).
 */
import type * as z from 'zod';
import { parseLenient, schemaAt } from '../../../shared/ai/lenient-input.ts';
import { toolError, type ToolEnvelope } from '../../../shared/ai/tool-envelope.ts';

export type ReadArguments = { ok: true; data: unknown; notes: string[] } | { ok: false; error: ToolEnvelope; notes: string[] };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Arguments with a required `workflowId` sent as null, "null" or "" (or left out) filled with the only workflow there is (a copy), and the note. */
function withOnlyWorkflow(schema: z.ZodType, raw: unknown, onlyWorkflowId: string | undefined): { value: unknown; note?: string } {
  const field = schemaAt(schema, ['workflowId']);
  if (!field || field._zod.optin === 'optional' || onlyWorkflowId === undefined || !isRecord(raw)) return { value: raw };
  const sent = raw.workflowId;
  const blank = sent === undefined || sent === null || (typeof sent === 'string' && (sent.trim() === '' || sent.trim() === 'null'));
  if (!blank) return { value: raw };
  const what = sent === undefined ? 'the missing "workflowId"' : `"workflowId": ${JSON.stringify(sent)}`;
  return { value: { ...raw, workflowId: onlyWorkflowId }, note: `read ${what} as "${onlyWorkflowId}", the project's only workflow` };
}

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): { found: boolean; value?: unknown } {
  let current: unknown = root;
  for (const step of path) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, step)) return { found: false };
    current = (current as Record<PropertyKey, unknown>)[step];
  }
  return { found: true, value: current };
}

function pathText(path: ReadonlyArray<PropertyKey>): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** One wrong field in words: where, what was sent, what is wrong, and what the field is for. */
function fieldProblem(issue: z.core.$ZodIssue, schema: z.ZodType, value: unknown): { path: string; message: string } {
  const path = pathText(issue.path);
  const sent = valueAt(value, issue.path);
  const field = issue.path.length > 0 ? schemaAt(schema, issue.path) : null;
  const wants = field?.description ? ` The field: ${field.description}` : '';
  const what = issue.path.length === 0 ? 'The arguments' : `"${path}"`;
  const got = !sent.found ? ' is missing' : issue.code === 'unrecognized_keys' ? '' : ` is ${preview(sent.value)}`;
  return { path, message: `${what}${got}: ${issue.message}.${wants}` };
}

/**
 * The arguments of `name` read with `schema`. `onlyWorkflowId` is the project's workflow when it
 * has exactly one. On success, the data and what was interpreted (notes for the model); else the
 * refusal, naming every wrong field.
 */
export function readToolArguments(name: string, schema: z.ZodType, raw: unknown, onlyWorkflowId?: string): ReadArguments {
  const filled = withOnlyWorkflow(schema, raw ?? {}, onlyWorkflowId);
  const { result, value, notes } = parseLenient(schema, filled.value, { blankOptionals: true });
  if (filled.note) notes.unshift(filled.note);
  if (result.success) return { ok: true, data: result.data, notes };
  const problems = result.error.issues.map((issue) => fieldProblem(issue, schema, value));
  return {
    ok: false,
    notes,
    error: toolError('AI_TOOL_ARGUMENTS_INVALID', {
      message: `${name} did not run: its arguments do not fit its JSON Schema. ${problems.map((p) => p.message).join(' ')}`,
      details: problems,
      hints: ['Call the tool again with these fields corrected. Leave an optional field out rather than sending null or "".'],
    }),
  };
}
