/**
 * One project settings form's save: sending a change of the project (`PATCH /api/projects/:id`),
 * whether it is under way, whether the last one was saved, and the error that refused it. The
 * details, review-rule and content-language forms each hold one.
 */
import type { ProjectView, UpdateProjectInput } from '../../shared/api/index.ts';
import type { ErrorBody } from '../../shared/errors.ts';
import { api } from './api.ts';

/** What each settings form is given: the project, whether this person may change it, and what to do once saved. */
export interface ProjectFormProps {
  project: ProjectView;
  editable: boolean;
  onSaved: (project: ProjectView) => void | Promise<void>;
}

export class ProjectUpdate {
  pending = $state(false);
  saved = $state(false);
  error = $state<ErrorBody | null>(null);

  /** Forget the last outcome (a form that checks its fields first starts here). */
  reset(): void {
    this.error = null;
    this.saved = false;
  }

  /** Sends `change` (one at a time); on success hands the saved project to `onSaved`. */
  async send(projectId: string, change: UpdateProjectInput, onSaved: (project: ProjectView) => void | Promise<void>): Promise<void> {
    if (this.pending) return;
    this.reset();
    this.pending = true;
    const result = await api.projects.update(projectId, change);
    if (result.ok) {
      this.saved = true;
      await onSaved(result.data.project);
    } else {
      this.error = result.error;
    }
    this.pending = false;
  }
}
