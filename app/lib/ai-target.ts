/**
 * The AI workbench's address: `/builder/{projectId}/ai-workbench?workflowId=…&targetType=…&targetId=…
 * &mode=…&source=…`, the same for all four AI entry points. The entry points build it with
 * `aiWorkbenchHref`; the workbench page parses it with `parseWorkbenchQuery`, so a refresh
 * restores the same target.
 */
// zod/mini: the address is read before the Workbench first paints, and classic zod would add
// ~20 KiB gzipped to that load for one object (the checks and messages are the same).
import * as z from 'zod/mini';
import { PACKAGE_ID_MAX_LENGTH, PACKAGE_ID_PATTERN } from '../../shared/api/package-id.ts';
import { checkAssetPath } from '../../shared/bmad/asset-path.ts';
import { safeNextPath } from './safe-next-path.ts';
import { t } from './i18n/i18n.svelte.ts';
import { problemWords } from './local-words.ts';
import { AI_MODES, AI_TARGET_TYPES, type AiTarget } from './workbench-address.ts';

export { AI_MODES, AI_TARGET_TYPES, workbenchSearch, type AiMode, type AiTarget, type AiTargetType } from './workbench-address.ts';

/** The same rule as `PackageId` in shared/api/common.ts, built from the same constants. */
const PackageId = z.string().check(z.minLength(1), z.maxLength(PACKAGE_ID_MAX_LENGTH), z.regex(PACKAGE_ID_PATTERN));

const optionalText = z.optional(
  z.pipe(
    z.string().check(z.trim()),
    z.transform((v: string) => (v === '' ? undefined : v)),
  ),
);

// The words are chosen when the address is read, in the reader's language at that moment.
const choice = <T extends readonly [string, ...string[]]>(values: T, name: string, what: () => string) =>
  z.enum(values, {
    error: (issue) =>
      issue.input === undefined || issue.input === ''
        ? t('workbenchAddress.missing', { name, what: what(), values: values.join('|') })
        : t('workbenchAddress.notOneOf', { input: String(issue.input), name, values: values.join(', ') }),
  });

export const WorkbenchQuery = z
  .object({
    targetType: choice(AI_TARGET_TYPES, 'targetType', () => t('workbenchAddress.whatTargetType')),
    mode: choice(AI_MODES, 'mode', () => t('workbenchAddress.whatMode')),
    targetId: optionalText,
    workflowId: optionalText,
    source: optionalText,
  })
  .check(
    z.superRefine((q, ctx) => {
      const problem = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
      if (q.workflowId !== undefined && !PackageId.safeParse(q.workflowId).success) {
        problem('workflowId', t('workbenchAddress.badWorkflowId', { id: q.workflowId }));
      }
      switch (q.targetType) {
        case 'workflow':
          if (q.mode === 'optimize' && q.workflowId === undefined && q.targetId === undefined) {
            problem('workflowId', t('workbenchAddress.workflowNeedsId'));
          }
          if (q.workflowId !== undefined && q.targetId !== undefined && q.workflowId !== q.targetId) {
            problem('targetId', t('workbenchAddress.differentWorkflows', { targetId: q.targetId, workflowId: q.workflowId }));
          }
          break;
        case 'step':
          if (q.workflowId === undefined) problem('workflowId', t('workbenchAddress.stepNeedsWorkflow'));
          if (q.mode === 'optimize' && q.targetId === undefined) problem('targetId', t('workbenchAddress.stepNeedsId'));
          if (q.targetId !== undefined && !PackageId.safeParse(q.targetId).success) problem('targetId', t('workbenchAddress.badNodeId', { id: q.targetId }));
          break;
        case 'agent':
          if (q.mode === 'optimize' && q.targetId === undefined) problem('targetId', t('workbenchAddress.agentNeedsId'));
          if (q.targetId !== undefined && !PackageId.safeParse(q.targetId).success) problem('targetId', t('workbenchAddress.badAgentId', { id: q.targetId }));
          break;
        case 'asset': {
          if (q.mode === 'optimize' && q.targetId === undefined) problem('targetId', t('workbenchAddress.assetNeedsPath'));
          const check = q.targetId === undefined ? null : checkAssetPath(q.targetId);
          if (check && !check.ok) {
            const words = problemWords(check.code, check.message, check.hint);
            problem('targetId', `${words.message} ${words.hint}`.trim());
          }
          break;
        }
        default: {
          const never: never = q.targetType;
          throw new Error(`unknown target type ${String(never)}`);
        }
      }
    }),
  );

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
