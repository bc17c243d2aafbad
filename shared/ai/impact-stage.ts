/**
 * Validation stage 4, the impact boundary (pipeline stages: shared/bmad/README.md): the scope of an AI session is its
 * target, not what a model declares. Every changed object outside the target is flagged for the
 * reviewers as a cross-object change (a warning: allowed, but visible); what a target type may
 * never do (delete a workflow, change an agent's id) is refused earlier, by the change-set
 * contract. The session passes this stage to `validatePackage(effective, {stages: [...]})`.
 */
import type { ErrorCode } from '../errors.ts';
import { warningIssue } from '../bmad/issues.ts';
import type { ValidationStage } from '../bmad/stage.ts';
import { parseObjectKey } from '../object-keys.ts';
import type { SessionMode, TargetType } from './session.ts';

export interface ImpactBoundaryInput {
  target: { targetType: TargetType; workflowId: string | null; targetId: string | null; mode: SessionMode };
  /** Object keys changed by the overlay (added, modified, deleted). */
  changedKeys: readonly string[];
  /** Maps an object key to the package file path it lives at, for the issue's filePath (fallback: the key). */
  pathOf?: (key: string) => string | undefined;
}

type Target = ImpactBoundaryInput['target'];

const CROSS_OBJECT: ErrorCode = 'AI_CROSS_OBJECT_CHANGE';

/**
 * Whether `key` belongs to the target itself. A create without a chosen id may touch any object
 * of the target's kind (within the workflow, for a step); an optimize without an id touches none.
 * A step create also owns its workflow's graph and workflow.md, which every new step changes.
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
      if (target.workflowId === null || !('workflowId' in object) || object.workflowId !== target.workflowId) return false;
      // A new step needs its node in the graph and its line in workflow.md's Steps Index: a step
      // create changes both every time, so they are part of it, not a cross-object change.
      if (target.mode === 'create' && (object.kind === 'graph' || object.kind === 'workflow')) return true;
      return object.kind === 'step' && (anyNew || object.nodeId === target.targetId);
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
  return {
    id: 'impact-boundary',
    order: 4,
    run(ctx) {
      for (const key of new Set(input.changedKeys)) {
        if (isWithinTarget(key, input.target)) continue;
        ctx.report(
          warningIssue(
            CROSS_OBJECT,
            input.pathOf?.(key) ?? key,
            `Cross-object change: ${key} is outside the target (${describeTarget(input.target)}). Reviewers, check it on purpose.`,
            { hint: 'Keep it if the target needs it; otherwise leave the object unchanged.' },
          ),
        );
      }
    },
  };
}
