/**
 * Did the ground move under the draft? For the diff view (GET …/changes): each staged file whose
 * scope revision (workflow, agents.json, assets) changed since it was first staged — someone saved
 * in the Builder or applied another session — and the `revisionBase` the reviewer's Apply sends
 * back, so a save between review and Apply still answers AI_REVISION_BASE_MISMATCH. The same list
 * is what a rebase (../rebase-commands.ts) merges and a resolution must name: moving a file onto
 * the new baseline moves its entry's revision, so it leaves this list.
 */
import type { BaselineDriftView } from '../../../shared/api/ai-session-views.ts';
import type { ChangedFile } from '../../../shared/ai/overlay.ts';
import type { SessionMeta } from '../../../shared/ai/session.ts';
import { scopeOf, type EffectiveView } from './effective-view.ts';

export function baselineDrift(view: EffectiveView, files: readonly ChangedFile[], meta: SessionMeta): BaselineDriftView {
  const current = view.baseline.revisions;
  const moved: BaselineDriftView['moved'] = [];
  const workflows = new Set<string>();
  for (const file of files) {
    const entry = view.entries.get(file.key);
    const scope = scopeOf(file.key);
    if (!entry || !scope) continue;
    if (scope.kind === 'workflow') workflows.add(scope.workflowId);
    // A file staged where its scope did not exist yet has nothing underneath to move.
    if (entry.baseRevision === 0) continue;
    const now = scope.kind === 'workflow' ? (current.workflows[scope.workflowId] ?? 0) : scope.kind === 'agents' ? current.agents : current.assets;
    if (now !== entry.baseRevision) moved.push({ key: file.key, ...(file.path ? { path: file.path } : {}), baseRevision: entry.baseRevision, currentRevision: now });
  }
  // The workflow the apply's `workflowRevision` means (apply.ts): the session's, else the only one touched.
  const workflowId = meta.workflowId ?? (workflows.size === 1 ? [...workflows][0]! : null);
  const workflowRevision = workflowId === null ? undefined : current.workflows[workflowId];
  return {
    moved,
    revisionBase: {
      ...(workflowRevision !== undefined ? { workflowRevision } : {}),
      agentsRevision: current.agents,
      assetsRevision: current.assets,
    },
  };
}
