/**
 * From a parsed changeSet to overlay writes. Each operation is checked against the effective view
 * (what exists now, staged or stored): deleting something absent, a step in a workflow that
 * exists nowhere, an unsafe asset path or an oversize text is a problem; every problem is
 * reported, and when there is one nothing is staged.
 */
import { ApiError } from '../../../shared/api-error.ts';
import { parseObjectKey } from '../../../shared/object-keys.ts';
import { checkAssetPath } from '../../../shared/bmad/asset-path.ts';
import { operationKeys, type ChangeOperation, type ChangeSet } from '../../../shared/ai/change-set.ts';
import type { Baseline } from '../../../shared/ai/overlay.ts';
import { sha256Hex } from '../../../shared/hash.ts';
import { contentOf, revisionOf, type EffectiveView } from './effective-view.ts';
import { MAX_ENTRY_CHARS, type StagedWrite } from './overlay-doc.ts';

export interface ContractProblem {
  code: string;
  message: string;
  path: string;
  hints: string[];
}

/** Codes that name the whole refusal when every problem has that code. */
const SPECIFIC_CODES = ['AI_CHANGESET_SCHEMA_UNSUPPORTED', 'AI_APPLY_UNSUPPORTED', 'AI_TARGET_CONTEXT_MISMATCH', 'ASSET_INVALID_PATH'] as const;
type SpecificCode = (typeof SPECIFIC_CODES)[number];

function isSpecific(code: string): code is SpecificCode {
  return (SPECIFIC_CODES as readonly string[]).includes(code);
}

/** One ApiError carrying every problem as a detail. */
export function contractError(problems: readonly ContractProblem[]): ApiError {
  const first = problems[0];
  const code = first && isSpecific(first.code) && problems.every((p) => p.code === first.code) ? first.code : 'AI_CHANGESET_CONTRACT_VIOLATION';
  return new ApiError(code, {
    message: problems.length === 1 ? first!.message : `The change set has ${problems.length} problems; nothing was staged.`,
    details: problems.map((p) => ({ code: p.code, path: p.path, message: p.message, ...(p.hints[0] ? { hint: p.hints[0] } : {}) })),
    hints: ['Fix every listed problem and stage the change set again.'],
  });
}

function notFoundCode(kind: string): 'WORKFLOW_NOT_FOUND' | 'STEP_NOT_FOUND' | 'AGENT_NOT_FOUND' | 'ASSET_NOT_FOUND' {
  if (kind === 'step') return 'STEP_NOT_FOUND';
  if (kind === 'agent') return 'AGENT_NOT_FOUND';
  if (kind === 'asset') return 'ASSET_NOT_FOUND';
  return 'WORKFLOW_NOT_FOUND';
}

/** The staged text of one key of an upsert (agents are stored as their JSON object, id included). */
function payloadContent(op: ChangeOperation, key: string): string {
  const payload = (op.op === 'upsert' ? op.payload : {}) as Record<string, unknown>;
  if (key.startsWith('workflow:')) return String(payload.workflowMd ?? '');
  if (key.startsWith('graph:')) {
    const graph = payload.graphJson;
    return typeof graph === 'string' ? graph : `${JSON.stringify(graph, null, 2)}\n`;
  }
  if (key.startsWith('step:')) return String(payload.stepMarkdown ?? '');
  if (key.startsWith('agent:')) {
    const agentId = key.slice('agent:'.length);
    return JSON.stringify({ ...(payload.agent as Record<string, unknown>), id: agentId }, null, 2);
  }
  return String(payload.content ?? '');
}

/** Problems of one key of one operation, given what exists (stored, staged, or staged earlier in this change set). */
function problemOf(op: ChangeOperation, key: string, at: string, view: EffectiveView, stagedNow: ReadonlySet<string>): ContractProblem | null {
  const parsed = parseObjectKey(key);
  if (!parsed) return { code: 'AI_CHANGESET_CONTRACT_VIOLATION', message: `"${key}" does not name a package file.`, path: `${at}.target`, hints: [] };
  const exists = contentOf(view.pkg, key) !== null || stagedNow.has(key);
  if (op.op === 'delete' && !exists) {
    return { code: notFoundCode(parsed.kind), message: `${key} does not exist, so it cannot be deleted.`, path: `${at}.target`, hints: [] };
  }
  if (parsed.kind === 'step') {
    const workflowExists = view.pkg.workflows.some((w) => w.id === parsed.workflowId) || stagedNow.has(`workflow:${parsed.workflowId}`);
    if (!workflowExists) {
      return {
        code: 'WORKFLOW_NOT_FOUND',
        message: `Workflow "${parsed.workflowId}" does not exist; stage the workflow (workflow.md and graph) before its steps.`,
        path: `${at}.target.workflowId`,
        hints: [`Known workflows: ${view.pkg.workflows.map((w) => w.id).join(', ') || 'none'}.`],
      };
    }
  }
  if (parsed.kind === 'asset') {
    const check = checkAssetPath(parsed.path);
    if (!check.ok) return { code: 'ASSET_INVALID_PATH', message: check.message, path: `${at}.target.path`, hints: check.hint ? [check.hint] : [] };
  }
  return null;
}

/** The overlay writes of a change set, or a contract error listing every problem. */
export async function stagedWrites(changeSet: ChangeSet, view: EffectiveView, baseline: Baseline): Promise<StagedWrite[]> {
  const problems: ContractProblem[] = [];
  const writes: StagedWrite[] = [];
  const stagedNow = new Set<string>();
  for (const [index, op] of changeSet.operations.entries()) {
    const at = `operations[${index}]`;
    for (const key of operationKeys(op)) {
      const problem = problemOf(op, key, at, view, stagedNow);
      const content = op.op === 'delete' ? '' : payloadContent(op, key);
      if (!problem && content.length > MAX_ENTRY_CHARS) {
        problems.push({ code: 'AI_CHANGESET_CONTRACT_VIOLATION', message: `${key} is larger than ${MAX_ENTRY_CHARS} characters.`, path: `${at}.payload`, hints: [] });
        continue;
      }
      if (problem) {
        problems.push(problem);
        continue;
      }
      const before = contentOf(baseline.pkg, key);
      writes.push({
        key,
        deleted: op.op === 'delete',
        content,
        baseRevision: revisionOf(baseline, key),
        baseHash: before === null ? null : await sha256Hex(before),
      });
      stagedNow.add(key);
    }
  }
  if (problems.length > 0) throw contractError(problems);
  return writes;
}
