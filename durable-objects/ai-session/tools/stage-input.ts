/**
 * The changeSet argument of `builder.change.stage`, read leniently before the contract checks it
 * (shared/ai/lenient-input.ts does the reading): a changeSet sent as JSON text, nulls and
 * stringly-typed numbers and booleans, a schemaVersion sent as a number, target ids written as
 * object keys, a whole target written as its object key (`"target": "step:classify"`), a step or
 * workflow target's blank workflowId read as the project's only workflow (when it has exactly one;
 * not for a workflow target of a create, which may mean the new workflow),
 * and short object keys in impact.objects resolved against the package. A short key that names several objects stops the staging with the candidates.
 */
import { ChangeSet } from '../../../shared/ai/change-set.ts';
import { isLegacyShape } from '../../../shared/ai/change-set-legacy.ts';
import { isRecord } from '../../../shared/ai/change-set-messages.ts';
import { parseJsonLenient, parseLenient, readObjectKey } from '../../../shared/ai/lenient-input.ts';
import { toolError, type ToolEnvelope } from '../../../shared/ai/tool-envelope.ts';
import type { BmadPackage } from '../../../shared/bmad/index.ts';
import { formatObjectKey, parseObjectKey } from '../../../shared/object-keys.ts';
import { keyOfPath } from '../overlay/effective-view.ts';
import { agentIds } from '../overlay/package-lookups.ts';

export type PreparedChangeSet = { ok: true; changeSet: unknown; notes: string[] } | { ok: false; error: ToolEnvelope };

/** Every object key the package holds (workflows, graphs, steps, agents, assets). */
export function objectKeysOf(pkg: BmadPackage): string[] {
  const keys: string[] = [];
  for (const workflow of pkg.workflows) {
    keys.push(formatObjectKey({ kind: 'workflow', workflowId: workflow.id }), formatObjectKey({ kind: 'graph', workflowId: workflow.id }));
    for (const step of workflow.steps) {
      const key = keyOfPath(pkg, step.path);
      if (key !== undefined) keys.push(key);
    }
  }
  for (const agentId of agentIds(pkg)) keys.push(formatObjectKey({ kind: 'agent', agentId }));
  for (const asset of pkg.assets) keys.push(formatObjectKey({ kind: 'asset', path: asset.path }));
  return keys;
}

/** The object-key prefix a model may put before each target field's value (`step:classify`). */
const TARGET_PREFIXES: ReadonlyArray<[field: string, prefixes: readonly string[]]> = [
  ['workflowId', ['workflow:', 'graph:']],
  ['agentId', ['agent:']],
  ['path', ['asset:']],
];

/** The object-key kinds a target of each type may be written as. */
const TARGET_KINDS: Readonly<Record<string, readonly string[]>> = { workflow: ['workflow', 'graph'], step: ['step'], agent: ['agent'], asset: ['asset'] };

/**
 * A target written as its object key (`"step:classify"`, `"step:wf/classify"`, `"agent:a"`), as the
 * target object it names; a short key must name exactly one object, and its kind must be the
 * operation's targetType. Anything else stays as sent (the contract check says what is wrong).
 */
function targetOfKey(text: string, targetType: unknown, known: readonly string[]): Record<string, string> | null {
  const reading = readObjectKey(text, known);
  if (reading.kind !== 'exact' && reading.kind !== 'interpreted') return null;
  const key = parseObjectKey(reading.key);
  if (!key || typeof targetType !== 'string' || !TARGET_KINDS[targetType]?.includes(key.kind)) return null;
  switch (key.kind) {
    case 'workflow':
    case 'graph':
      return { workflowId: key.workflowId };
    case 'step':
      return { workflowId: key.workflowId, nodeId: key.nodeId };
    case 'agent':
      return { agentId: key.agentId };
    case 'asset':
      return { path: key.path };
    default:
      return null;
  }
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && (value.trim() === '' || value.trim() === 'null'));
}

/**
 * Target ids written as object keys (`"nodeId": "step:classify"`, `"step:wf/classify"`,
 * `"workflowId": "workflow:wf"`, `"path": "asset:assets/x.md"`) read as the ids they name. Ids
 * may contain a colon, so a value that names an existing object as written is kept; otherwise it
 * would have become a new object (a step file `steps/step:classify.md`) beside the one meant.
 */
function readTargets(changeSet: Record<string, unknown>, pkg: BmadPackage, known: readonly string[], notes: string[]): Record<string, unknown> {
  if (!Array.isArray(changeSet.operations)) return changeSet;
  const has = new Set(known);
  const onlyWorkflow = pkg.workflows.length === 1 ? pkg.workflows[0]!.id : undefined;
  const operations = changeSet.operations.map((operation: unknown, index) => {
    if (!isRecord(operation)) return operation;
    if (typeof operation.target === 'string') {
      const read = targetOfKey(operation.target, operation.targetType, known);
      if (!read) return operation;
      notes.push(`read operations[${index}].target "${operation.target}" as ${JSON.stringify(read)}`);
      return { ...operation, target: read };
    }
    if (!isRecord(operation.target)) return operation;
    const target: Record<string, unknown> = { ...operation.target };
    const note = (field: string, from: string, to: string) => notes.push(`read operations[${index}].target.${field} "${from}" as "${to}"`);
    // A step lives in a workflow that exists; a workflow target left blank in a create could be the new one.
    const inOnlyWorkflow = operation.targetType === 'step' || (operation.targetType === 'workflow' && changeSet.mode !== 'create');
    if (inOnlyWorkflow && onlyWorkflow !== undefined && isBlank(target.workflowId)) {
      const what = target.workflowId === undefined ? 'the missing workflowId' : `workflowId ${JSON.stringify(target.workflowId)}`;
      notes.push(`read operations[${index}].target's ${what} as "${onlyWorkflow}", the project's only workflow`);
      target.workflowId = onlyWorkflow;
    }
    for (const [field, prefixes] of TARGET_PREFIXES) {
      const value = target[field];
      const prefix = typeof value === 'string' ? prefixes.find((p) => value.startsWith(p)) : undefined;
      // An object whose id is the value as written (key `workflow:workflow:x`) keeps it.
      if (typeof value !== 'string' || !prefix || has.has(`${prefix}${value}`)) continue;
      target[field] = value.slice(prefix.length);
      note(field, value, target[field] as string);
    }
    const nodeId = target.nodeId;
    if (typeof nodeId === 'string' && nodeId.startsWith('step:')) {
      const rest = nodeId.slice('step:'.length);
      const slash = rest.indexOf('/');
      const [workflowId, node] = slash === -1 ? [target.workflowId, rest] : [rest.slice(0, slash), rest.slice(slash + 1)];
      const asWritten = typeof target.workflowId === 'string' && has.has(`step:${target.workflowId}/${nodeId}`);
      const agrees = target.workflowId === undefined || target.workflowId === workflowId;
      if (!asWritten && agrees && typeof workflowId === 'string' && node) {
        target.workflowId = workflowId;
        target.nodeId = node;
        note('nodeId', nodeId, node);
      }
    }
    return { ...operation, target };
  });
  return { ...changeSet, operations };
}

export function prepareChangeSet(raw: unknown, pkg: BmadPackage): PreparedChangeSet {
  const notes: string[] = [];
  let value = raw;
  if (typeof value === 'string') {
    const parsed = parseJsonLenient(value, { unwrapString: true });
    // Text that is not JSON goes on as it is: the contract check says so in its own words.
    if (parsed.ok && isRecord(parsed.value)) {
      value = parsed.value;
      notes.push('read "changeSet", sent as JSON text, as the object inside it', ...parsed.notes);
    }
  }
  if (!isRecord(value) || isLegacyShape(value)) return { ok: true, changeSet: value, notes };
  const lenient = parseLenient(ChangeSet, value, { pathPrefix: 'changeSet.' });
  notes.push(...lenient.notes);
  const known = objectKeysOf(pkg);
  let candidate = readTargets(lenient.value as Record<string, unknown>, pkg, known, notes);
  // "schemaVersion": 1.0 is the number 1 once parsed; the contract's version is the text "1.0".
  if (candidate.schemaVersion === 1) {
    candidate = { ...candidate, schemaVersion: '1.0' };
    notes.push('read "schemaVersion": 1.0 (a number) as "1.0"');
  }
  const impact = candidate.impact;
  if (!isRecord(impact) || !Array.isArray(impact.objects)) return { ok: true, changeSet: candidate, notes };

  const listed: unknown[] = impact.objects;
  const ambiguous: Array<{ key: string; candidates: string[] }> = [];
  const objects = listed.map((key) => {
    if (typeof key !== 'string') return key;
    const reading = readObjectKey(key, known);
    if (reading.kind === 'interpreted') notes.push(reading.note);
    if (reading.kind === 'ambiguous') ambiguous.push({ key, candidates: reading.candidates });
    return reading.kind === 'interpreted' ? reading.key : key;
  });
  if (ambiguous.length > 0) {
    return {
      ok: false,
      error: toolError('AI_OBJECT_KEY_AMBIGUOUS', {
        message: `Nothing was staged: ${ambiguous.map((a) => `"${a.key}" could mean ${a.candidates.join(' or ')}`).join('; ')}.`,
        details: ambiguous.map((a) => ({
          code: 'AI_OBJECT_KEY_AMBIGUOUS',
          path: `changeSet.impact.objects[${listed.indexOf(a.key)}]`,
          message: `"${a.key}" names ${a.candidates.length} objects: ${a.candidates.join(', ')}.`,
          hint: `Write the full key of the one you mean, e.g. "${a.candidates[0]}".`,
        })),
        hints: ['Use full object keys (step:<workflowId>/<nodeId>) and stage the change set again.'],
      }),
    };
  }
  return { ok: true, changeSet: { ...candidate, impact: { ...impact, objects } }, notes };
}
