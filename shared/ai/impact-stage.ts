/**
 * Validation stage 4, the impact boundary: every object an AI session changes
 * must lie within the session's target or be declared in a change set's `impact.objects`. The
 * session passes this stage to `validatePackage(effective, {stages: [...]})` when it validates.
 */
import type { ErrorCode } from '../errors.ts';
import { errorIssue } from '../bmad/issues.ts';
import type { ValidationStage } from '../bmad/stage.ts';
import { parseObjectKey } from '../object-keys.ts';
import type { SessionMode, TargetType } from './session.ts';

export interface ImpactBoundaryInput {
  target: { targetType: TargetType; workflowId: string | null; targetId: string | null; mode: SessionMode };
  /** Object keys changed by the overlay (added, modified, deleted). */
  changedKeys: readonly string[];
  /** Object keys declared in the change sets' impact.objects so far (union). */
  declaredKeys: readonly string[];
  /** Maps an object key to the package file path it lives at, for the issue's filePath (fallback: the key). */
  pathOf?: (key: string) => string | undefined;
}

type Target = ImpactBoundaryInput['target'];

const VIOLATION: ErrorCode = 'AI_CHANGESET_CONTRACT_VIOLATION';

/**
 * Whether `key` belongs to the target itself. A create without a chosen id may touch any object
 * of the target's kind (within the workflow, for a step); an optimize without an id touches none.
 */
export function isWithinTarget(key: string, target: Target): boolean {
  const object = parseObjectKey(key);
  if (object === undefined) return false;
  const anyNew = target.targetId === null && target.mode === 'create';
  switch (target.targetType) {
    case 'workflow': {
      if (object.kind !== 'workflow' && object.kind !== 'graph' && object.kind !== 'step') return false;
      const workflowId = target.workflowId ?? target.targetId;
      return workflowId === null ? target.mode === 'create' : object.workflowId === workflowId;
    }
    case 'step':
      return (
        object.kind === 'step' &&
        target.workflowId !== null &&
        object.workflowId === target.workflowId &&
        (anyNew || object.nodeId === target.targetId)
      );
    case 'agent':
      return object.kind === 'agent' && (anyNew || object.agentId === target.targetId);
    case 'asset':
      return object.kind === 'asset' && (anyNew || object.path === target.targetId);
    default: {
      const never: never = target.targetType;
      throw new Error(`unknown target type ${String(never)}`);
    }
  }
}

/** The target as a person reads it: `step wf/step-01`, `a new agent`, `a new step in workflow wf`. */
export function describeTarget(target: Target): string {
  const { targetType, workflowId, targetId } = target;
  if (targetType === 'workflow') {
    const id = workflowId ?? targetId;
    return id === null ? 'a new workflow' : `workflow ${id}`;
  }
  if (targetType === 'step') {
    const workflow = workflowId ?? '?';
    return targetId === null ? `a new step in workflow ${workflow}` : `step ${workflow}/${targetId}`;
  }
  return targetId === null ? `a new ${targetType}` : `${targetType} ${targetId}`;
}

export function impactBoundaryStage(input: ImpactBoundaryInput): ValidationStage {
  const declared = new Set(input.declaredKeys);
  return {
    id: 'impact-boundary',
    order: 4,
    run(ctx) {
      for (const key of new Set(input.changedKeys)) {
        if (declared.has(key) || isWithinTarget(key, input.target)) continue;
        ctx.report(
          errorIssue(
            VIOLATION,
            input.pathOf?.(key) ?? key,
            `The change touches ${key}, which is outside the target (${describeTarget(input.target)}) and not declared in impact.objects.`,
            { hint: 'Declare it in impact.objects, or leave it unchanged.' },
          ),
        );
      }
    },
  };
}
