/**
 * The AI workbench's address: `/builder/{projectId}/ai-workbench?workflowId=…&targetType=…&targetId=…
 * &mode=…&source=…`, the same for all four AI entry points. The entry points build it with
 * `aiWorkbenchHref`; the workbench page parses it with `parseWorkbenchQuery`, so a refresh
 * restores the same target.
 */
import { z } from 'zod';
import { PackageId } from '../../shared/api/index.ts';
import { checkAssetPath } from '../../shared/bmad/asset-path.ts';
import { safeNextPath } from './safe-next-path.ts';
import { AI_MODES, AI_TARGET_TYPES, type AiTarget } from './workbench-address.ts';

export { AI_MODES, AI_TARGET_TYPES, workbenchSearch, type AiMode, type AiTarget, type AiTargetType } from './workbench-address.ts';

const optionalText = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();

const choice = <T extends readonly [string, ...string[]]>(values: T, name: string, what: string) =>
  z.enum(values, {
    error: (issue) =>
      issue.input === undefined || issue.input === ''
        ? `The address has no ${name}: say ${what} (${name}=${values.join('|')}).`
        : `"${String(issue.input)}" is not a ${name}; use one of ${values.join(', ')}.`,
  });

export const WorkbenchQuery = z
  .object({
    targetType: choice(AI_TARGET_TYPES, 'targetType', 'what the AI should work on'),
    mode: choice(AI_MODES, 'mode', 'whether to create something new or optimize what exists'),
    targetId: optionalText,
    workflowId: optionalText,
    source: optionalText,
  })
  .superRefine((q, ctx) => {
    const problem = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (q.workflowId !== undefined && !PackageId.safeParse(q.workflowId).success) {
      problem('workflowId', `"${q.workflowId}" is not a valid workflow id.`);
    }
    switch (q.targetType) {
      case 'workflow':
        if (q.mode === 'optimize' && q.workflowId === undefined && q.targetId === undefined) {
          problem('workflowId', 'Optimizing a workflow needs its id: add workflowId=<id>.');
        }
        if (q.workflowId !== undefined && q.targetId !== undefined && q.workflowId !== q.targetId) {
          problem('targetId', `targetId "${q.targetId}" and workflowId "${q.workflowId}" name different workflows.`);
        }
        break;
      case 'step':
        if (q.workflowId === undefined) problem('workflowId', 'A step belongs to a workflow: add workflowId=<id>.');
        if (q.mode === 'optimize' && q.targetId === undefined) problem('targetId', 'Optimizing a step needs its node id: add targetId=<nodeId>.');
        if (q.targetId !== undefined && !PackageId.safeParse(q.targetId).success) problem('targetId', `"${q.targetId}" is not a valid node id.`);
        break;
      case 'agent':
        if (q.mode === 'optimize' && q.targetId === undefined) problem('targetId', 'Optimizing an agent needs its id: add targetId=<agentId>.');
        if (q.targetId !== undefined && !PackageId.safeParse(q.targetId).success) problem('targetId', `"${q.targetId}" is not a valid agent id.`);
        break;
      case 'asset': {
        if (q.mode === 'optimize' && q.targetId === undefined) problem('targetId', 'Optimizing an asset needs its path: add targetId=assets/….');
        const check = q.targetId === undefined ? null : checkAssetPath(q.targetId);
        if (check && !check.ok) problem('targetId', `${check.message} ${check.hint}`);
        break;
      }
      default: {
        const never: never = q.targetType;
        throw new Error(`unknown target type ${String(never)}`);
      }
    }
  });

export type WorkbenchQueryResult =
  | { ok: true; target: AiTarget; source: string | undefined }
  | { ok: false; problems: Array<{ field: string; message: string }>; source: string | undefined };

/** Reads the workbench's query string; every problem is reported, not only the first. */
export function parseWorkbenchQuery(params: URLSearchParams): WorkbenchQueryResult {
  const raw = Object.fromEntries(['targetType', 'mode', 'targetId', 'workflowId', 'source'].map((k) => [k, params.get(k) ?? undefined]));
  const rawSource = params.get('source');
  // `source` is only ever followed back to a page of this site.
  const source = rawSource ? safeNextPath(rawSource, '') || undefined : undefined;
  const parsed = WorkbenchQuery.safeParse(raw);
  if (!parsed.success) {
    return {
      ok: false,
      source,
      problems: parsed.error.issues.map((issue) => ({ field: String(issue.path[0] ?? 'query'), message: issue.message })),
    };
  }
  const q = parsed.data;
  const workflowId = q.targetType === 'workflow' ? (q.workflowId ?? q.targetId) : q.workflowId;
  const targetId = q.targetType === 'workflow' ? (q.targetId ?? (q.mode === 'optimize' ? workflowId : undefined)) : q.targetId;
  const target: AiTarget = {
    targetType: q.targetType,
    mode: q.mode,
    ...(targetId !== undefined ? { targetId } : {}),
    ...(workflowId !== undefined ? { workflowId } : {}),
  };
  return { ok: true, target, source };
}
