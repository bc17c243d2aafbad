/**
 * The working-copy overlay of an AI session, as every reader sees it: staged file contents keyed
 * by object key (shared/object-keys.ts), deletions, and the baseline revision/hash each entry was
 * staged on. The session Durable Object keeps these in a Y.Doc; tools, validation, the diff and
 * the UI read them through the effective view (overlay first, D1 baseline otherwise).
 */
import type { BmadPackage } from '../bmad/package.ts';
import type { DomainProfile } from '../api/projects.ts';
import type { ContentLanguage } from '../i18n/content-language.ts';

/** One staged object. `content` is the file text ('' when deleted). */
export interface OverlayEntry {
  /** `workflow:<wid>`, `graph:<wid>`, `step:<wid>/<nodeId>`, `agent:<agentId>`, `asset:<path>`. */
  key: string;
  deleted: boolean;
  content: string;
  /** Revision of the object's scope (workflow / agents / assets) when first staged; 0 when the scope did not exist. */
  baseRevision: number;
  /** sha256 (hex) of the baseline content when first staged; null when the object was new. */
  baseHash: string | null;
}

/** Revisions of every scope of the stored package. */
export interface BaselineRevisions {
  /** Workflow id → revision (covers workflow.md, the graph and the workflow's steps). */
  workflows: Record<string, number>;
  agents: number;
  assets: number;
}

/** The stored package a session reads under its overlay. */
export interface Baseline {
  projectId: string;
  pkg: BmadPackage;
  revisions: BaselineRevisions;
}

/** The baseline with the project settings a session reads beside it (its object keeps it: overlay/baseline-cache.ts). */
export interface ProjectContext {
  baseline: Baseline;
  domainProfile: DomainProfile;
  /** Approvals an apply needs from people other than the session's creator (project setting). */
  requiredApprovals: number;
  /** The language the package is written in (project setting): staged content is written in it. */
  contentLanguage: ContentLanguage;
}

/** A changed file as lists and events show it: Added, Modified, Deleted. */
export type FileAction = 'A' | 'M' | 'D';

export interface ChangedFile {
  key: string;
  action: FileAction;
  /** The file's path inside the package (for display), when it has one. */
  path?: string;
}

/** The scope (and so the revision) an object key belongs to. */
export type KeyScope = { kind: 'workflow'; workflowId: string } | { kind: 'agents' } | { kind: 'assets' };
