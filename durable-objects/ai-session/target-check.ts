/**
 * Whether a new session's target exists in the baseline the session loads anyway (issue 19: create
 * in two D1 round trips). The Worker checks the request's shape (kind, ids, asset path) without
 * D1; what exists is checked here, with the same errors the Worker's existence queries gave:
 * optimize needs the target, create needs it absent (a step also needs its workflow).
 */
import { ApiError } from '../../shared/api-error.ts';
import type { SessionMeta } from '../../shared/ai/session.ts';
import type { BmadPackage } from '../../shared/bmad/index.ts';
import { findAgent, findStep, findWorkflow } from './overlay/package-lookups.ts';

export function checkTargetInBaseline(pkg: BmadPackage, meta: SessionMeta): void {
  const optimize = meta.mode === 'optimize';
  const { targetId, workflowId } = meta;
  switch (meta.targetType) {
    case 'workflow': {
      if (!workflowId) return;
      const exists = findWorkflow(pkg, workflowId) !== undefined;
      if (optimize && !exists) throw new ApiError('WORKFLOW_NOT_FOUND', { message: `There is no workflow "${workflowId}" in this project.` });
      if (!optimize && exists) throw new ApiError('WORKFLOW_EXISTS', { hints: ['Optimize the existing workflow, or choose a new id.'] });
      return;
    }
    case 'step': {
      const workflow = workflowId ? findWorkflow(pkg, workflowId) : undefined;
      if (!workflow) throw new ApiError('WORKFLOW_NOT_FOUND', { message: `There is no workflow "${workflowId}" in this project.` });
      if (!targetId) return;
      const exists = findStep(workflow, targetId) !== undefined;
      if (optimize && !exists) throw new ApiError('STEP_NOT_FOUND', { message: `There is no step "${targetId}" in workflow "${workflowId}".` });
      if (!optimize && exists) throw new ApiError('AI_TARGET_CONTEXT_MISMATCH', { message: `Step "${targetId}" already exists; optimize it instead.` });
      return;
    }
    case 'agent': {
      if (!targetId) return;
      const exists = findAgent(pkg, targetId) !== undefined;
      if (optimize && !exists) throw new ApiError('AGENT_NOT_FOUND', { message: `There is no agent "${targetId}" in this project.` });
      if (!optimize && exists) throw new ApiError('AI_TARGET_CONTEXT_MISMATCH', { message: `Agent "${targetId}" already exists; optimize it instead.` });
      return;
    }
    case 'asset': {
      if (!targetId) return;
      const exists = pkg.assets.some((a) => a.path === targetId);
      if (optimize && !exists) throw new ApiError('ASSET_NOT_FOUND', { message: `There is no asset ${targetId} in this project.` });
      if (!optimize && exists) throw new ApiError('ASSET_EXISTS', { hints: ['Optimize the existing asset, or choose a new path.'] });
      return;
    }
    default: {
      const never: never = meta.targetType;
      throw new Error(`unknown target ${String(never)}`);
    }
  }
}
