/**
 * What the session shows (session.ts reads): the session view (meta, status, the current
 * suggestion and its validation, review, a page of the conversation, the latest turn, usage),
 * the changes view with each changed file's baseline and staged text, and the derived impact.
 */
import { computeImpact, type ChangeImpactView, type ImpactStepRefs } from '../../shared/ai/change-impact.ts';
import { assetRefsInText } from '../../shared/bmad/asset-refs.ts';
import type { BmadPackage } from '../../shared/bmad/package.ts';
import { formatObjectKey } from '../../shared/object-keys.ts';
import { agentIds, frontmatterOf, stepsOf } from './overlay/package-lookups.ts';
import type { SessionMeta } from '../../shared/ai/session.ts';
import type { ChangesView } from '../../shared/api/ai-session-views.ts';
import type { SessionView, TurnView, VersionView } from '../../shared/ai/session-rpc.ts';
import { changedFiles, contentOf, overlayHash, type EffectiveView } from './overlay/effective-view.ts';
import type { SessionHost } from './session-host.ts';
import type { ChangeVersion } from './overlay/versions.ts';
import type { TurnRecord } from './loop/turn-store.ts';
import type { EventLog } from './events/event-log.ts';
import { baselineDrift } from './overlay/baseline-drift.ts';

export interface StateOptions {
  messagesBefore?: number | undefined;
  messagesLimit?: number | undefined;
}

export function versionView(v: ChangeVersion): VersionView {
  return {
    changeSetId: v.id,
    version: v.version,
    contentHash: v.contentHash,
    source: v.source,
    status: v.status,
    files: v.files,
    changeSet: v.changeSet,
    createdAt: v.createdAt,
  };
}

export function turnView(turn: TurnRecord): TurnView {
  return {
    turnId: turn.id,
    status: turn.status,
    content: turn.content,
    suggestOnly: turn.suggestOnly,
    requestedBy: { userId: turn.userId, name: turn.userName },
    iteration: turn.iteration,
    repairs: turn.repairs,
    usage: turn.usage,
    acceptedSeq: turn.acceptedSeq,
    startedAt: new Date(turn.startedAt).toISOString(),
    endedAt: turn.endedAt === null ? null : new Date(turn.endedAt).toISOString(),
    context: turn.context,
  };
}

function lineCount(text: string): number {
  return text === '' ? 0 : text.split('\n').length;
}

/** The impact of the whole overlay, derived from its files (shared/ai/change-impact.ts). */
export function impactOf(meta: SessionMeta, view: EffectiveView): ChangeImpactView {
  const files = changedFiles(view).map((f) => ({
    key: f.key,
    ...(f.path === undefined ? {} : { path: f.path }),
    before: contentOf(view.baseline.pkg, f.key),
    after: f.action === 'D' ? null : contentOf(view.pkg, f.key),
  }));
  return computeImpact(files, {
    target: { targetType: meta.targetType, workflowId: meta.workflowId, targetId: meta.targetId, mode: meta.mode },
    assetPaths: new Set(view.pkg.assets.map((a) => a.path)),
    agentIds: { before: new Set(agentIds(view.baseline.pkg)), after: new Set(agentIds(view.pkg)) },
    steps: stepRefs(view.pkg, files),
  });
}

/**
 * The steps whose references the impact checks: every step when the change removes an agent or
 * an asset (an untouched step can be broken by it), else only the steps it writes.
 */
function stepRefs(pkg: BmadPackage, files: readonly { key: string; after: string | null }[]): ImpactStepRefs[] {
  const everyStep = files.some((f) => f.after === null && /^(agent|asset):/.test(f.key));
  const written = new Set(files.filter((f) => f.key.startsWith('step:')).map((f) => f.key));
  if (!everyStep && written.size === 0) return [];
  const out: ImpactStepRefs[] = [];
  for (const workflow of pkg.workflows) {
    for (const step of stepsOf(workflow)) {
      const key = formatObjectKey({ kind: 'step', workflowId: workflow.id, nodeId: step.nodeId });
      if (!step.file || (!everyStep && !written.has(key))) continue;
      const agentId = frontmatterOf(step.file.markdown)?.agentId;
      out.push({
        key,
        ...(typeof agentId === 'string' ? { agentId } : {}),
        assets: assetRefsInText(step.file.markdown).map((r) => r.path),
      });
    }
  }
  return out;
}

export class SessionViews {
  readonly #host: SessionHost;
  readonly #log: EventLog;

  constructor(host: SessionHost, log: EventLog) {
    this.#host = host;
    this.#log = log;
  }

  async state(options: StateOptions = {}): Promise<SessionView> {
    const host = this.#host;
    const meta = host.requireMeta();
    const latest = host.versions.latest();
    const current = latest && latest.status !== 'applied' && host.overlay.size > 0 ? latest : null;
    const hash = await overlayHash(host.overlay.entries());
    const { ctx, view } = await host.view();
    // Threads with Yjs anchors follow the draft's text; older ones are checked against the line count.
    const threads = host.review.threads({
      doc: host.overlay.doc,
      textOf: (key) => host.overlay.textOf(key),
      lineCount: (key) => {
        const text = contentOf(view.pkg, key);
        return text === null ? null : lineCount(text);
      },
    });
    const approvals = current ? host.review.approvals(current.contentHash) : [];
    const gate = host.reviewer.gate(current, ctx.requiredApprovals);
    const limit = Math.min(Math.max(options.messagesLimit ?? 50, 1), 200);
    const rows = host.turns.conversation({ before: options.messagesBefore, limit: limit + 1 });
    const page = rows.slice(-limit);
    const turn = host.turns.latest();
    return {
      meta,
      status: host.status(),
      lastSeq: this.#log.lastSeq(),
      latestSuggestion: current ? versionView(current) : null,
      validation: current?.validation ?? null,
      pendingEdits: host.overlay.size > 0 && (!latest || latest.contentHash !== hash),
      review: {
        threads,
        approvals,
        requiredApprovals: ctx.requiredApprovals,
        countedApprovals: gate.counted,
        changeRequests: gate.requests,
        override: gate.override,
        authors: [...gate.authors],
        block: current ? gate.block : null,
      },
      messages: {
        items: page.map((r) => ({ id: r.id, role: r.role, content: r.content, turnId: r.turnId, createdAt: r.createdAt })),
        nextCursor: rows.length > limit ? page[0]!.id : null,
      },
      turn: turn ? turnView(turn) : null,
      usage: { session: host.turns.sessionUsage(), tokenBudget: host.turns.tokenBudget() },
    };
  }

  /** Baseline and staged text of every changed file: what the diff shows (large contents go over HTTP, not the socket). */
  async changes(): Promise<ChangesView> {
    const host = this.#host;
    const meta = host.requireMeta();
    const { view } = await host.view();
    const latest = host.versions.latest();
    const files = changedFiles(view).map((f) => ({
      ...f,
      before: contentOf(view.baseline.pkg, f.key),
      after: f.action === 'D' ? null : contentOf(view.pkg, f.key),
    }));
    const contentHash = await overlayHash(host.overlay.entries());
    const current = latest && latest.contentHash === contentHash && latest.status !== 'applied' ? latest : null;
    return {
      changeSetId: current?.id ?? null,
      version: current?.version ?? null,
      contentHash,
      files,
      impact: impactOf(meta, view),
      baseline: baselineDrift(view, files, meta),
    };
  }
}
