/**
 * The original product's older change-set shape, `{targetType, mode, changeSet: {steps[], assets{upsert,
 * delete}, agents{upsert, delete}}, impact{updated, risks}}` (the `changeSet` wrapper may be left
 * out), and its conversion into a current-shape candidate. `parseChangeSet` (change-set.ts) then
 * checks that candidate like any other and adds the LEGACY_SHAPE_WARNING; every error keeps the
 * path the sender wrote, not the converted one.
 */
import * as z from 'zod';
import type { DataPath } from '../bmad/json-pointer.ts';
import { AssetPath, ChangeRevisions, CHANGE_SET_SCHEMA_VERSION, Extensions, ObjectKeyText, Reason, checkJson, id, payloadText } from './change-set-fields.ts';
import { issueViolations, renderPath, violation } from './change-set-messages.ts';
import type { ContractViolation, RenderPath } from './change-set-messages.ts';
import { SessionMode, TargetType } from './session.ts';

/** Warning code for a change set sent in the original product's older shape (not an API error code). */
export const LEGACY_SHAPE_WARNING = 'AI_CHANGESET_LEGACY_SHAPE';

/** The warning every change set sent in the older shape gets, converted or not. */
export function legacyShapeWarning(): ContractViolation {
  return violation(
    LEGACY_SHAPE_WARNING,
    '',
    'This change set uses the older {steps, assets} shape; it was converted to the current one ' +
      '(schemaVersion "1.0" with operations[]).',
    'Send schemaVersion "1.0" with an operations[] list next time.',
  );
}

/** The older shape, strict like the current one, built from the current field schemas. */
function legacySchema() {
  const LegacyStep = z.strictObject({
    workflowId: z.union([id('Workflow id'), z.int().min(0)]),
    nodeId: id('Node id'),
    stepMarkdown: payloadText('Step file.'),
    reason: Reason,
  });
  const LegacyAssetUpsert = z.strictObject({ path: AssetPath, content: payloadText('Asset text.'), reason: Reason });
  const LegacyAssetDelete = z.union([AssetPath, z.strictObject({ path: AssetPath, reason: Reason })]);
  const LegacyAgent = z.looseObject({ id: id('Agent id') }).superRefine((agent, ctx) => checkJson(agent, ctx));
  const LegacyChanges = z.strictObject({
    steps: z.array(LegacyStep).optional(),
    assets: z
      .strictObject({ upsert: z.array(LegacyAssetUpsert).optional(), delete: z.array(LegacyAssetDelete).optional() })
      .optional(),
    agents: z.strictObject({ upsert: z.array(LegacyAgent).optional(), delete: z.array(id('Agent id')).optional() }).optional(),
  });
  return z.strictObject({
    targetType: TargetType,
    mode: SessionMode,
    changeSet: LegacyChanges,
    impact: z
      .strictObject({
        updated: z.array(ObjectKeyText).optional(),
        risks: z.array(z.string()).optional(),
        requiresConfirmation: z.boolean().optional(),
      })
      .optional(),
    revisions: ChangeRevisions.optional(),
    extensions: Extensions,
  });
}

const LEGACY_SCHEMA = legacySchema();

const LEGACY_CHANGE_FIELDS = ['steps', 'assets', 'agents'] as const;

/** Whether `data` is in the older shape: steps/assets/agents (wrapped in `changeSet` or not) and no operations. */
export function isLegacyShape(data: Record<string, unknown>): boolean {
  return !Object.hasOwn(data, 'operations') && ['changeSet', ...LEGACY_CHANGE_FIELDS].some((k) => Object.hasOwn(data, k));
}

export type LegacyConversion =
  | { ok: true; candidate: Record<string, unknown>; render: RenderPath }
  | { ok: false; errors: ContractViolation[] };

/** Converts the older shape to a current-shape candidate; its paths are rendered as the sender wrote them. */
export function convertLegacy(data: Record<string, unknown>): LegacyConversion {
  const wrapped = Object.hasOwn(data, 'changeSet');
  let input = data;
  if (!wrapped) {
    // Move the top-level steps/assets/agents into the wrapper, so one schema reads both forms.
    const changes: Record<string, unknown> = {};
    input = { changeSet: changes };
    for (const [field, value] of Object.entries(data)) {
      if ((LEGACY_CHANGE_FIELDS as readonly string[]).includes(field)) changes[field] = value;
      else input[field] = value;
    }
  }
  const legacyRender: RenderPath = (path) => renderPath(!wrapped && path[0] === 'changeSet' ? path.slice(1) : path);
  const parsed = LEGACY_SCHEMA.safeParse(input);
  if (!parsed.success) {
    const errors = parsed.error.issues.flatMap((issue) => issueViolations(issue, input, LEGACY_SCHEMA, legacyRender));
    return { ok: false, errors };
  }
  const legacy = parsed.data;
  const operations: Record<string, unknown>[] = [];
  const sources: DataPath[] = [];
  const add = (source: DataPath, operation: Record<string, unknown>, reason: string | undefined) => {
    operations.push(reason === undefined ? operation : { ...operation, reason });
    sources.push(['changeSet', ...source]);
  };
  legacy.changeSet.steps?.forEach((step, i) => {
    const target = { workflowId: String(step.workflowId), nodeId: step.nodeId };
    add(['steps', i], { op: 'upsert', targetType: 'step', target, payload: { stepMarkdown: step.stepMarkdown } }, step.reason);
  });
  legacy.changeSet.agents?.upsert?.forEach((agent, i) => {
    add(['agents', 'upsert', i], { op: 'upsert', targetType: 'agent', target: { agentId: agent.id }, payload: { agent } }, undefined);
  });
  legacy.changeSet.agents?.delete?.forEach((agentId, i) =>
    add(['agents', 'delete', i], { op: 'delete', targetType: 'agent', target: { agentId } }, undefined),
  );
  legacy.changeSet.assets?.upsert?.forEach((asset, i) => {
    const operation = { op: 'upsert', targetType: 'asset', target: { path: asset.path }, payload: { content: asset.content } };
    add(['assets', 'upsert', i], operation, asset.reason);
  });
  legacy.changeSet.assets?.delete?.forEach((entry, i) => {
    const { path, reason } = typeof entry === 'string' ? { path: entry, reason: undefined } : entry;
    add(['assets', 'delete', i], { op: 'delete', targetType: 'asset', target: { path } }, reason);
  });

  const impact: Record<string, unknown> = { objects: legacy.impact?.updated ?? [] };
  if (legacy.impact?.risks !== undefined) impact.riskFlags = legacy.impact.risks;
  if (legacy.impact?.requiresConfirmation !== undefined) impact.requiresConfirmation = legacy.impact.requiresConfirmation;
  const candidate: Record<string, unknown> = {
    schemaVersion: CHANGE_SET_SCHEMA_VERSION,
    targetType: legacy.targetType,
    mode: legacy.mode,
    operations,
    impact,
  };
  if (legacy.revisions !== undefined) candidate.revisions = legacy.revisions;
  if (legacy.extensions !== undefined) candidate.extensions = legacy.extensions;
  // An operation's path is reported as the legacy entry it came from.
  const render: RenderPath = (path) => {
    const source = path[0] === 'operations' && typeof path[1] === 'number' ? sources[path[1]] : undefined;
    return legacyRender(source ?? path);
  };
  return { ok: true, candidate, render };
}

