/**
 * The changeSet contract (what the AI stages: targets, upsert/delete operations, impact, revisions): the strict zod schema of what the AI stages, and
 * `parseChangeSet`, which checks a proposed change set against the schema and the contract's
 * semantic rules and reports every violation in plain English (change-set-messages.ts). The
 * original product's older `{changeSet: {steps[], assets{upsert, delete}}}` shape is converted to the current
 * one with a deprecation warning (change-set-legacy.ts). Used by `builder.change.stage` /
 * `validate` and for the model's JSON Schema.
 */
import * as z from 'zod';
import type { DataPath } from '../bmad/json-pointer.ts';
import { preview } from '../bmad/schema-issues.ts';
import type { ErrorCode } from '../errors.ts';
import { formatObjectKey } from '../object-keys.ts';
import {
  AssetPath,
  ChangeRevisions,
  CHANGE_SET_SCHEMA_VERSION,
  Count,
  Extensions,
  MAX_CHANGE_OPERATIONS,
  ObjectKeyText,
  Reason,
  id,
  jsonObject,
  payloadText,
} from './change-set-fields.ts';
import { convertLegacy, isLegacyShape, legacyShapeWarning } from './change-set-legacy.ts';
import { CONTRACT, isRecord, issueViolations, kindOf, renderPath, violation, withArticle } from './change-set-messages.ts';
import type { ContractViolation, RenderPath } from './change-set-messages.ts';
import { SessionMode, TargetType } from './session.ts';


/** The code of a note about the model's declared impact (information only; staging goes ahead). */
export const IMPACT_NOTE: ErrorCode = 'AI_IMPACT_DISAGREES';

export type { ContractViolation };

// ---- targets and payloads -------------------------------------------------------------------

const WorkflowTarget = z.strictObject({ workflowId: id('Id of the workflow.') });
const StepTarget = z.strictObject({
  workflowId: id('Id of the workflow that holds the step.'),
  nodeId: id('Id of the graph node the step file belongs to.'),
});
const AgentTarget = z.strictObject({ agentId: id('Id of the agent in agents.json.') });
const AssetTarget = z.strictObject({ path: AssetPath });

const WorkflowPayload = z
  .strictObject({
    workflowMd: payloadText('The full new text of workflow.md, frontmatter included.').optional(),
    graphJson: z
      .union([
        payloadText('The full new workflow.graph.json as JSON text.'),
        jsonObject('The full new workflow.graph.json as a JSON object.'),
      ])
      .optional()
      .describe('The full new workflow.graph.json, as JSON text or as an object.'),
  })
  .refine((payload) => payload.workflowMd !== undefined || payload.graphJson !== undefined, {
    message: 'A workflow upsert needs "workflowMd", "graphJson" or both.',
    params: { code: CONTRACT, hint: 'Add the new workflow.md text as "workflowMd", or the new graph as "graphJson".' },
  })
  .describe('New contents of workflow.md and/or workflow.graph.json (at least one).');
const StepPayload = z
  .strictObject({ stepMarkdown: payloadText('The full new step file: frontmatter, ## Goal, ## Instructions.') })
  .describe('New contents of the step file.');
const AgentPayload = z
  .strictObject({
    agent: jsonObject('The full agent definition, as one entry of agents.json. Its "id", if given, equals target.agentId.'),
  })
  .describe('The new agent definition.');
const AssetPayload = z
  .strictObject({ content: payloadText('The full new text of the asset file.') })
  .describe('New contents of the asset.');

// ---- operations -----------------------------------------------------------------------------

/** Fields every operation may carry besides its kind, target and payload. */
const OperationNotes = { reason: Reason, extensions: Extensions };

const WorkflowUpsert = z
  .strictObject({
    op: z.literal('upsert'),
    targetType: z.literal('workflow'),
    target: WorkflowTarget,
    payload: WorkflowPayload,
    ...OperationNotes,
  })
  .describe('Create or replace workflow.md and/or the graph of a workflow. Deleting a whole workflow is not supported.');
const StepUpsert = z
  .strictObject({ op: z.literal('upsert'), targetType: z.literal('step'), target: StepTarget, payload: StepPayload, ...OperationNotes })
  .describe('Create or replace a step file.');
const StepDelete = z
  .strictObject({ op: z.literal('delete'), targetType: z.literal('step'), target: StepTarget, ...OperationNotes })
  .describe('Delete a step file.');
const AgentUpsert = z
  .strictObject({ op: z.literal('upsert'), targetType: z.literal('agent'), target: AgentTarget, payload: AgentPayload, ...OperationNotes })
  .describe('Create or replace an agent in agents.json.');
const AgentDelete = z
  .strictObject({ op: z.literal('delete'), targetType: z.literal('agent'), target: AgentTarget, ...OperationNotes })
  .describe('Remove an agent from agents.json.');
const AssetUpsert = z
  .strictObject({ op: z.literal('upsert'), targetType: z.literal('asset'), target: AssetTarget, payload: AssetPayload, ...OperationNotes })
  .describe('Create or replace an asset file.');
const AssetDelete = z
  .strictObject({ op: z.literal('delete'), targetType: z.literal('asset'), target: AssetTarget, ...OperationNotes })
  .describe('Delete an asset file.');

export const ChangeOperation = z
  .discriminatedUnion('targetType', [
    WorkflowUpsert,
    z.discriminatedUnion('op', [StepUpsert, StepDelete]),
    z.discriminatedUnion('op', [AgentUpsert, AgentDelete]),
    z.discriminatedUnion('op', [AssetUpsert, AssetDelete]),
  ])
  .describe('One change to one package object. An upsert carries the full new content in "payload"; a delete has no payload.');
export type ChangeOperation = z.infer<typeof ChangeOperation>;

export const ChangeImpact = z
  .strictObject({
    objects: z.array(ObjectKeyText).describe('Every object the change set touches, including ones outside the target.'),
    counts: z
      .strictObject({ workflow: Count.optional(), step: Count.optional(), agent: Count.optional(), asset: Count.optional() })
      .optional()
      .describe('How many objects of each kind change.'),
    riskFlags: z.array(z.string()).optional().describe('Short notes on risks the reviewer should know about.'),
    requiresConfirmation: z.boolean().optional().describe('Whether a person must confirm before applying (they always do).'),
  })
  .describe('What the change set affects, shown to the person who reviews it.');
export type ChangeImpact = z.infer<typeof ChangeImpact>;


export const ChangeSet = z
  .strictObject({
    schemaVersion: z.literal(CHANGE_SET_SCHEMA_VERSION).describe('Always "1.0".'),
    targetType: TargetType.describe("The session's target type."),
    mode: SessionMode.describe("The session's mode."),
    operations: z
      .array(ChangeOperation)
      .min(1)
      .max(MAX_CHANGE_OPERATIONS)
      .describe('The changes: at least one, at most 200, at most one per object.'),
    impact: ChangeImpact.optional().describe(
      'Optional: what you believe the change set affects. The system derives the real impact from the staged files; a declared impact that differs is reported back as a note, never a refusal.',
    ),
    revisions: ChangeRevisions.optional(),
    extensions: Extensions,
  })
  .describe('A proposed change to the package. It is staged for review; only a person can apply it.');
/** After `parseChangeSet`, a workflow payload's `graphJson` is always a string. */
export type ChangeSet = z.infer<typeof ChangeSet>;

export type ChangeSetParse =
  | { ok: true; changeSet: ChangeSet; warnings: ContractViolation[] }
  | { ok: false; errors: ContractViolation[]; warnings: ContractViolation[] };

export interface ChangeSetExpectation {
  targetType?: TargetType;
  mode?: SessionMode;
}

/** The object keys an operation writes (shared/object-keys.ts). */
export function operationKeys(op: ChangeOperation): string[] {
  switch (op.targetType) {
    case 'workflow': {
      const keys: string[] = [];
      if (op.payload.workflowMd !== undefined) keys.push(formatObjectKey({ kind: 'workflow', workflowId: op.target.workflowId }));
      if (op.payload.graphJson !== undefined) keys.push(formatObjectKey({ kind: 'graph', workflowId: op.target.workflowId }));
      return keys;
    }
    case 'step':
      return [formatObjectKey({ kind: 'step', workflowId: op.target.workflowId, nodeId: op.target.nodeId })];
    case 'agent':
      return [formatObjectKey({ kind: 'agent', agentId: op.target.agentId })];
    case 'asset':
      return [formatObjectKey({ kind: 'asset', path: op.target.path })];
    default: {
      const never: never = op;
      throw new Error(`unknown operation ${String(never)}`);
    }
  }
}

// ---- the original product's older shape -----------------------------------------------------------------


// ---- the contract's semantic rules ----------------------------------------------------------

function semanticViolations(
  candidate: Record<string, unknown>,
  operations: ReadonlyArray<{ index: number; op: ChangeOperation }>,
  expect: ChangeSetExpectation,
  render: RenderPath,
): ContractViolation[] {
  const errors: ContractViolation[] = [];
  const where = (index: number, ...rest: DataPath) => render(['operations', index, ...rest]);

  const writers = new Map<string, number>();
  for (const { index, op } of operations) {
    for (const key of operationKeys(op)) {
      const first = writers.get(key);
      if (first === undefined) writers.set(key, index);
      else {
        errors.push(
          violation(
            CONTRACT,
            where(index),
            `${where(index)} changes ${key}, which ${where(first)} already changes.`,
            'Change each object in one operation only: merge the two.',
          ),
        );
      }
    }
  }

  const optimizingAgent = candidate.targetType === 'agent' && candidate.mode === 'optimize';
  if (optimizingAgent) {
    // Deleting an agent is not optimizing it, and delete + upsert under a new id is a rename.
    for (const { index, op } of operations) {
      if (op.targetType !== 'agent' || op.op !== 'delete') continue;
      errors.push(
        violation(
          CONTRACT,
          where(index),
          `Optimizing an agent never removes or renames one: ${where(index)} deletes "${op.target.agentId}".`,
          'Upsert the agent under its own agentId with the improved definition instead.',
        ),
      );
    }
  }
  for (const { index, op } of operations) {
    if (op.targetType !== 'agent' || op.op !== 'upsert' || !Object.hasOwn(op.payload.agent, 'id')) continue;
    const agentId = op.payload.agent.id;
    if (agentId === op.target.agentId) continue;
    const path = where(index, 'payload', 'agent', 'id');
    const hint = `Set "id" to "${op.target.agentId}", or leave it out.`;
    errors.push(
      optimizingAgent
        ? violation(
            CONTRACT,
            path,
            `Optimizing an agent never changes its agentId. ${where(index)} targets "${op.target.agentId}", ` +
              `but the agent's id is ${preview(agentId)}.`,
            hint,
          )
        : violation(CONTRACT, path, `${path} (${preview(agentId)}) must equal target.agentId ("${op.target.agentId}").`, hint),
    );
  }

  const { targetType, mode } = candidate;
  if (expect.targetType !== undefined && TargetType.safeParse(targetType).success && targetType !== expect.targetType) {
    errors.push(
      violation(
        'AI_TARGET_CONTEXT_MISMATCH',
        'targetType',
        `The change set targets ${withArticle(String(targetType))}, but this session works on ${withArticle(expect.targetType)}.`,
        `Set "targetType" to "${expect.targetType}".`,
      ),
    );
  }
  if (expect.mode !== undefined && SessionMode.safeParse(mode).success && mode !== expect.mode) {
    errors.push(
      violation(
        'AI_TARGET_CONTEXT_MISMATCH',
        'mode',
        `The change set is in ${String(mode)} mode, but this session is in ${expect.mode} mode.`,
        `Set "mode" to "${expect.mode}".`,
      ),
    );
  }
  return errors;
}

/** Object graphs become the text that is stored: pretty-printed with a final newline. */
function normalise(changeSet: ChangeSet): ChangeSet {
  const operations = changeSet.operations.map((op): ChangeOperation => {
    if (op.targetType !== 'workflow' || op.payload.graphJson === undefined || typeof op.payload.graphJson === 'string') return op;
    return { ...op, payload: { ...op.payload, graphJson: JSON.stringify(op.payload.graphJson, null, 2) + '\n' } };
  });
  return { ...changeSet, operations };
}

/**
 * Checks a proposed change set (an object or its JSON text) and reports every violation: the
 * schema's, AI_APPLY_UNSUPPORTED for deleting a workflow, two operations on one object, an agent
 * id that differs from its target, and AI_TARGET_CONTEXT_MISMATCH against `expect`.
 */
export function parseChangeSet(input: unknown, expect: ChangeSetExpectation = {}): ChangeSetParse {
  const warnings: ContractViolation[] = [];
  let data = input;
  if (typeof input === 'string') {
    try {
      data = JSON.parse(input);
    } catch {
      return {
        ok: false,
        errors: [violation(CONTRACT, '', 'The change set is not valid JSON.', 'Send exactly one JSON object, with nothing around it.')],
        warnings,
      };
    }
  }
  if (!isRecord(data)) {
    const message = `The change set must be a JSON object, but it is ${kindOf(data)}.`;
    return { ok: false, errors: [violation(CONTRACT, '', message)], warnings };
  }

  let candidate = data;
  let render = renderPath;
  if (isLegacyShape(data)) {
    warnings.push(legacyShapeWarning());
    const converted = convertLegacy(data);
    if (!converted.ok) return { ok: false, errors: converted.errors, warnings };
    candidate = converted.candidate;
    render = converted.render;
  }

  if (Object.hasOwn(candidate, 'schemaVersion') && candidate.schemaVersion !== CHANGE_SET_SCHEMA_VERSION) {
    return {
      ok: false,
      errors: [
        violation(
          'AI_CHANGESET_SCHEMA_UNSUPPORTED',
          'schemaVersion',
          `Change set version ${preview(candidate.schemaVersion)} is not supported.`,
          `Use "schemaVersion": "${CHANGE_SET_SCHEMA_VERSION}".`,
        ),
      ],
      warnings,
    };
  }

  // The declared impact is information, not a gate (the system derives the impact itself): a
  // malformed one is dropped with a warning instead of refusing the change set.
  if (Object.hasOwn(candidate, 'impact')) {
    const impact = ChangeImpact.safeParse(candidate.impact);
    if (!impact.success) {
      for (const issue of impact.error.issues) {
        for (const problem of issueViolations(issue, candidate, ChangeSet, render, ['impact'])) {
          warnings.push({ ...problem, code: IMPACT_NOTE, message: `${problem.message} The declared impact was ignored; the system derives it.` });
        }
      }
      const { impact: _dropped, ...rest } = candidate;
      void _dropped;
      candidate = rest;
    }
  }

  const errors: ContractViolation[] = [];
  const rawOperations = Array.isArray(candidate.operations) ? (candidate.operations as unknown[]) : [];
  const workflowDeletes = new Set<number>();
  rawOperations.forEach((raw, index) => {
    if (!isRecord(raw) || raw.op !== 'delete' || raw.targetType !== 'workflow') return;
    workflowDeletes.add(index);
    errors.push(
      violation(
        'AI_APPLY_UNSUPPORTED',
        render(['operations', index]),
        'Deleting a whole workflow through the AI is not supported.',
        'Delete the workflow yourself from the project page, or change its steps instead.',
      ),
    );
  });

  const parsed = ChangeSet.safeParse(candidate);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const index = issue.path[0] === 'operations' ? issue.path[1] : undefined;
      if (typeof index === 'number' && workflowDeletes.has(index)) continue;
      errors.push(...issueViolations(issue, candidate, ChangeSet, render));
    }
  }

  const operations = rawOperations.flatMap((raw, index) => {
    const op = ChangeOperation.safeParse(raw);
    return op.success ? [{ index, op: op.data }] : [];
  });
  errors.push(...semanticViolations(candidate, operations, expect, render));

  if (errors.length > 0 || !parsed.success) return { ok: false, errors, warnings };
  return { ok: true, changeSet: normalise(parsed.data), warnings };
}