/**
 * The impact of a change set as the system sees it, derived from the overlay's file diffs rather
 * than taken from the model: every file added, modified or deleted with its line counts, the
 * objects touched by kind, the asset references the change adds or leaves broken, and risk flags
 * for the reviewers (cross-object, high churn, deletions, broken references). The diff shows it;
 * a model's declared impact is only compared with it (`declaredImpactNotes`), never trusted.
 */
import { diffLines } from 'diff';
import { assetRefExists, assetRefsInText } from '../bmad/asset-refs.ts';
import { parseObjectKey } from '../object-keys.ts';
import { isWithinTarget, type ImpactBoundaryInput } from './impact-stage.ts';
import type { FileAction } from './overlay.ts';

/** A file with more changed lines than this is flagged as high churn. */
export const HIGH_CHURN_LINES = 200;

export interface ImpactFileInput {
  key: string;
  path?: string;
  /** The baseline text; null when the file is new. */
  before: string | null;
  /** The staged text; null when the file is deleted. */
  after: string | null;
}

export interface ImpactFile {
  path: string;
  objectKey: string;
  status: FileAction;
  added: number;
  removed: number;
}

export type ImpactKind = 'workflow' | 'graph' | 'step' | 'agent' | 'asset';

/**
 * Why a reference is broken: it names nothing (`missing`), names an agent the change removes or
 * one that does not exist, or an asset the change deletes or moves.
 */
export type BrokenCause = 'missing' | 'agent-removed' | 'agent-missing' | 'asset-moved';

/**
 * A risk flag. `message` is the English sentence (the model and logs read it); `lines`, `ref` and
 * `cause` are its values, so an app says the same in its reader's language.
 */
export type RiskFlag =
  | { flag: 'cross-object'; objectKey: string; message: string }
  | { flag: 'high-churn'; objectKey: string; message: string; lines: number }
  | { flag: 'deletes'; objectKey: string; message: string }
  | { flag: 'broken-reference'; objectKey: string; message: string; ref: string; cause: BrokenCause };

export interface ChangeImpactView {
  files: ImpactFile[];
  counts: { files: number; added: number; modified: number; deleted: number; linesAdded: number; linesRemoved: number };
  /** Object keys touched, by kind. */
  objects: Record<ImpactKind, string[]>;
  /** Asset paths the change starts to mention, and ones it mentions that do not exist. */
  references: { added: string[]; broken: string[] };
  risks: RiskFlag[];
}

/** A step of the effective package and what it refers to, for references the change breaks elsewhere. */
export interface ImpactStepRefs {
  key: string;
  /** The agent its frontmatter names, if any. */
  agentId?: string;
  /** The asset paths it mentions. */
  assets: readonly string[];
}

export interface ImpactOptions {
  /** The session's target: objects outside it are flagged cross-object. */
  target?: ImpactBoundaryInput['target'];
  /** Every asset path of the effective package, to find broken references. */
  assetPaths?: ReadonlySet<string>;
  /** The agent ids of agents.json in the baseline and in the draft: a step naming an agent the draft removed is broken. */
  agentIds?: { before: ReadonlySet<string>; after: ReadonlySet<string> };
  /** Every step of the draft with its references: a step the change did not touch can still be broken by it. */
  steps?: readonly ImpactStepRefs[];
}

function lineTotals(before: string, after: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const part of diffLines(before, after)) {
    if (part.added) added += part.count ?? 0;
    else if (part.removed) removed += part.count ?? 0;
  }
  return { added, removed };
}

function statusOf(file: ImpactFileInput): FileAction {
  if (file.after === null) return 'D';
  return file.before === null ? 'A' : 'M';
}

function refsOf(key: string, text: string | null): Set<string> {
  // Only steps mention assets by path (stage 3 of validation reads the same references).
  if (text === null || parseObjectKey(key)?.kind !== 'step') return new Set();
  return new Set(assetRefsInText(text).map((r) => r.path));
}

/** The impact of the overlay, from its file diffs (shared/api ChangesView.files). */
export function computeImpact(input: readonly ImpactFileInput[], options: ImpactOptions = {}): ChangeImpactView {
  const files: ImpactFile[] = [];
  const objects: Record<ImpactKind, string[]> = { workflow: [], graph: [], step: [], agent: [], asset: [] };
  const risks: RiskFlag[] = [];
  const added = new Set<string>();
  const broken = new Set<string>();
  for (const file of [...input].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
    const status = statusOf(file);
    const lines = lineTotals(file.before ?? '', file.after ?? '');
    files.push({ path: file.path ?? file.key, objectKey: file.key, status, ...lines });
    const kind = parseObjectKey(file.key)?.kind;
    if (kind !== undefined && kind !== 'workflow-name') objects[kind].push(file.key);
    if (options.target && !isWithinTarget(file.key, options.target)) {
      risks.push({ flag: 'cross-object', objectKey: file.key, message: `${file.key} lies outside the session's target.` });
    }
    if (lines.added + lines.removed > HIGH_CHURN_LINES) {
      const changed = lines.added + lines.removed;
      risks.push({ flag: 'high-churn', objectKey: file.key, message: `${file.key} changes ${changed} lines.`, lines: changed });
    }
    if (status === 'D') risks.push({ flag: 'deletes', objectKey: file.key, message: `${file.key} is deleted.` });
    const was = refsOf(file.key, file.before);
    for (const ref of refsOf(file.key, file.after)) {
      if (!was.has(ref)) added.add(ref);
      if (options.assetPaths && !assetRefExists(ref, options.assetPaths)) {
        if (!broken.has(ref)) {
          risks.push({ flag: 'broken-reference', objectKey: file.key, message: `${file.key} mentions ${ref}, which does not exist.`, ref, cause: 'missing' });
        }
        broken.add(ref);
      }
    }
  }
  for (const flag of brokenElsewhere(input, options, broken)) risks.push(flag);
  const count = (status: FileAction) => files.filter((f) => f.status === status).length;
  return {
    files,
    counts: {
      files: files.length,
      added: count('A'),
      modified: count('M'),
      deleted: count('D'),
      linesAdded: files.reduce((n, f) => n + f.added, 0),
      linesRemoved: files.reduce((n, f) => n + f.removed, 0),
    },
    objects,
    references: { added: [...added].sort(), broken: [...broken].sort() },
    risks,
  };
}

/**
 * References the change breaks in steps, whether or not it touched them: a step naming an agent
 * that is gone (removed by this change, or named by a step this change wrote), and a step still
 * mentioning an asset this change deletes or moves. Each broken reference is added to `broken`
 * (agents as `agent:<id>`) and flagged once per step.
 */
function brokenElsewhere(input: readonly ImpactFileInput[], options: ImpactOptions, broken: Set<string>): RiskFlag[] {
  const flags: RiskFlag[] = [];
  const changed = new Set(input.map((f) => f.key));
  const deletedAssets = new Set(
    input.filter((f) => f.after === null && parseObjectKey(f.key)?.kind === 'asset').map((f) => f.path ?? f.key.slice('asset:'.length)),
  );
  const agents = options.agentIds;
  for (const step of options.steps ?? []) {
    const agent = step.agentId;
    if (agents && agent !== undefined && agent !== '' && !agents.after.has(agent)) {
      // Blame the change only for what it did: it removed the agent, or it wrote this step.
      if (agents.before.has(agent) || changed.has(step.key)) {
        const removed = agents.before.has(agent);
        const why = removed ? 'which this change removes from agents.json' : 'which does not exist';
        flags.push({
          flag: 'broken-reference',
          objectKey: step.key,
          message: `${step.key} names agent ${agent}, ${why}.`,
          ref: agent,
          cause: removed ? 'agent-removed' : 'agent-missing',
        });
        broken.add(`agent:${agent}`);
      }
    }
    if (changed.has(step.key)) continue; // a changed step's asset references were checked with its file
    for (const ref of step.assets) {
      if (!assetRefExists(ref, deletedAssets) || (options.assetPaths && assetRefExists(ref, options.assetPaths))) continue;
      flags.push({ flag: 'broken-reference', objectKey: step.key, message: `${step.key} mentions ${ref}, which this change deletes or moves.`, ref, cause: 'asset-moved' });
      broken.add(ref);
    }
  }
  return flags;
}

/** What a model declared as impact, loosely (it is only compared, never trusted). */
export interface DeclaredImpact {
  objects?: readonly string[];
  counts?: Partial<Record<'workflow' | 'step' | 'agent' | 'asset', number>>;
}

/**
 * Notes for the model where its declared impact disagrees with the objects its change set
 * actually writes. They are information: the staging goes ahead with the system's impact.
 */
export function declaredImpactNotes(declared: DeclaredImpact | undefined, writtenKeys: readonly string[]): string[] {
  if (!declared) return [];
  const notes: string[] = [];
  const written = new Set(writtenKeys);
  const listed = new Set(declared.objects ?? []);
  const notWritten = [...listed].filter((k) => !written.has(k)).sort();
  const notListed = [...written].filter((k) => !listed.has(k)).sort();
  if (notWritten.length > 0) notes.push(`impact.objects lists ${notWritten.join(', ')}, which this change set does not change; the system's impact is used instead.`);
  if (notListed.length > 0) notes.push(`this change set also changes ${notListed.join(', ')}, which impact.objects does not list; the system's impact includes it.`);
  for (const [kind, n] of Object.entries(declared.counts ?? {})) {
    // A workflow upsert writes workflow: and graph: keys; both count as the one workflow.
    const distinct = new Set<string>();
    for (const key of writtenKeys) {
      const object = parseObjectKey(key);
      if (object === undefined) continue;
      const isWorkflow = object.kind === 'workflow' || object.kind === 'graph';
      if ((isWorkflow ? 'workflow' : object.kind) === kind) distinct.add(isWorkflow ? `workflow:${object.workflowId}` : key);
    }
    const actual = distinct.size;
    if (n !== actual) notes.push(`impact.counts.${kind} is ${n}, but this change set changes ${actual}; the system's count is used.`);
  }
  return notes;
}
