/**
 * The session itself, apart from sockets: its meta and status, the overlay, change-set versions,
 * validation, shared review, apply and cancel. Every observable step goes through `emit`, which
 * appends to the event log before anything is broadcast. Mutations run one at a time (a promise
 * chain), so two stages or a stage and an apply never interleave at an await.
 */
import type { Db } from '../../worker/db/client.ts';
import { ApiError } from '../../worker/http/api-error.ts';
import { newId } from '../../worker/ids.ts';
import { atLeast } from '../../shared/api/common.ts';
import { ERROR_CODES } from '../../shared/errors.ts';
import { logError } from '../../shared/errors-report.ts';
import { validatePackage, type ValidationReport } from '../../shared/bmad/index.ts';
import { parseObjectKey } from '../../shared/object-keys.ts';
import { operationKeys, parseChangeSet, type ChangeSet } from '../../shared/ai/change-set.ts';
import { computeImpact, declaredImpactNotes, type ChangeImpactView } from '../../shared/ai/change-impact.ts';
import { impactBoundaryStage } from '../../shared/ai/impact-stage.ts';
import { summarizeValidation, toChangeValidation, type ChangeValidation } from '../../shared/ai/validation-result.ts';
import { userActor, type EventActor, type NewEvent, type SessionEvent } from '../../shared/ai/events.ts';
import type { SessionMeta, SessionStatus } from '../../shared/ai/session.ts';
import type { ChangedFile } from '../../shared/ai/overlay.ts';
import { applyChanges } from './apply.ts';
import { loadProjectContext, type ProjectContext } from './baseline.ts';
import { changedFiles, contentOf, createEffectiveView, keyOfPath, overlayHash, pathOf, type EffectiveView } from './effective-view.ts';
import { EventLog } from './event-log.ts';
import { OverlayDoc } from './overlay-doc.ts';
import { ReviewStore } from './review.ts';
import { ChangeRequestStore } from './change-requests.ts';
import { ReviewService, type CommentInput } from './review-service.ts';
import { auditApplyFailed, mirrorVersion, recordCancel } from './d1-records.ts';
import { contractError, stagedWrites } from './staging.ts';
import { readKv, writeKv } from './storage.ts';
import { VersionStore, type ChangeVersion, type VersionSource } from './versions.ts';
import { TurnStore, type TurnRecord } from './loop/turn-store.ts';
import type { Actor, ApplyRequest, ApplyResult, FileDiff, SessionView, StageResult, TurnView, VersionView } from './contracts.ts';
import type { ChangesView } from '../../shared/api/ai-session-views.ts';

export type { Actor, ApplyRequest, ApplyResult, FileDiff, SessionView, StageResult, TurnView, VersionView };

/** How long co-edits settle before a new version is made and validated. */
export const REVALIDATE_DEBOUNCE_MS = 750;

function versionView(v: ChangeVersion): VersionView {
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

function turnView(turn: TurnRecord): TurnView {
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

export interface SessionDeps {
  sql: SqlStorage;
  db: Db;
  /** Store-then-broadcast; returns the stored event. */
  emit: (event: NewEvent) => SessionEvent;
  /** Ask for the alarm to run at `dueAt` (ms since epoch). */
  schedule: (name: string, dueAt: number) => void;
}

export class SessionCore {
  readonly overlay: OverlayDoc;
  readonly log: EventLog;
  readonly versions: VersionStore;
  readonly review: ReviewStore;
  readonly requests: ChangeRequestStore;
  /** The review rules (review-service.ts); run here one at a time like every mutation. */
  readonly #reviewer: ReviewService;
  /** The AI turns' checkpoints and the conversation (loop/turn-store.ts). */
  readonly turns: TurnStore;
  readonly #deps: SessionDeps;
  #queue: Promise<unknown> = Promise.resolve();
  #applying = false;
  #baselineReport: { key: string; report: ValidationReport } | null = null;

  constructor(deps: SessionDeps) {
    this.#deps = deps;
    this.overlay = new OverlayDoc(deps.sql);
    this.log = new EventLog(deps.sql);
    this.versions = new VersionStore(deps.sql);
    this.review = new ReviewStore(deps.sql);
    this.requests = new ChangeRequestStore(deps.sql);
    this.#reviewer = new ReviewService({
      db: deps.db,
      review: this.review,
      requests: this.requests,
      overlay: this.overlay,
      emit: deps.emit,
      meta: () => this.#requireMeta(),
    });
    this.turns = new TurnStore(deps.sql);
  }

  /** True while an apply waits or runs. */
  get applying(): boolean {
    return this.#applying;
  }

  get meta(): SessionMeta | undefined {
    return readKv<SessionMeta>(this.#deps.sql, 'meta');
  }

  get status(): SessionStatus {
    return readKv<SessionStatus>(this.#deps.sql, 'status') ?? 'active';
  }

  #requireMeta(): SessionMeta {
    const meta = this.meta;
    if (!meta) throw new ApiError('AI_SESSION_NOT_FOUND');
    return meta;
  }

  #requireActive(): SessionMeta {
    const meta = this.#requireMeta();
    if (this.status !== 'active') throw new ApiError('AI_SESSION_CLOSED');
    return meta;
  }

  #requireEditor(actor: Actor): void {
    if (!atLeast(actor.role, 'editor')) {
      throw new ApiError('FORBIDDEN', {
        message: `This needs the editor role on the project; you are a ${actor.role}.`,
        hints: ['Ask a project owner to change your role.'],
      });
    }
  }

  /** Run mutations one at a time. */
  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Record the session (idempotent: a retried create does not log twice). */
  init(meta: SessionMeta, userPrompt: string | null): void {
    if (this.meta) return;
    writeKv(this.#deps.sql, 'meta', meta);
    writeKv(this.#deps.sql, 'status', 'active');
    if (userPrompt) {
      this.#deps.sql.exec(
        'INSERT INTO messages (role, content, turn_id, extra, created_at) VALUES (?, ?, NULL, NULL, ?)',
        'user',
        userPrompt,
        meta.createdAt,
      );
    }
    this.#deps.emit({
      type: 'session.created',
      actor: { kind: 'user', userId: meta.createdBy, name: readKv<string>(this.#deps.sql, 'creatorName') ?? '' },
      payload: { targetType: meta.targetType, targetId: meta.targetId, workflowId: meta.workflowId, mode: meta.mode },
    });
  }

  setCreatorName(name: string): void {
    writeKv(this.#deps.sql, 'creatorName', name);
  }

  async #context(): Promise<ProjectContext> {
    return loadProjectContext(this.#deps.db, this.#requireMeta().projectId);
  }

  #baselineValidation(ctx: ProjectContext): ValidationReport {
    const key = JSON.stringify(ctx.baseline.revisions);
    if (this.#baselineReport?.key !== key) this.#baselineReport = { key, report: validatePackage(ctx.baseline.pkg) };
    return this.#baselineReport.report;
  }

  /** The effective view over a freshly read baseline. */
  async view(): Promise<{ ctx: ProjectContext; view: EffectiveView }> {
    const ctx = await this.#context();
    return { ctx, view: createEffectiveView(ctx.baseline, this.overlay.entries()) };
  }

  validateView(ctx: ProjectContext, view: EffectiveView, files: ChangedFile[]): ChangeValidation {
    const meta = this.#requireMeta();
    const stage = impactBoundaryStage({
      target: { targetType: meta.targetType, workflowId: meta.workflowId, targetId: meta.targetId, mode: meta.mode },
      changedKeys: files.map((f) => f.key),
      pathOf: (key) => pathOf(view.pkg, key) ?? pathOf(ctx.baseline.pkg, key),
    });
    const report = validatePackage(view.pkg, { stages: [stage] });
    return toChangeValidation(report, { baseline: this.#baselineValidation(ctx), keyOfPath: (p) => keyOfPath(view.pkg, p) });
  }

  // ---------------------------------------------------------------- versions

  /** Make a new version of the current overlay (when it differs from the latest) and revoke stale approvals. */
  async #recordVersion(view: EffectiveView, source: VersionSource, createdBy: { userId: string; name: string } | null, changeSet: ChangeSet | null): Promise<ChangeVersion> {
    const meta = this.#requireMeta();
    const files = changedFiles(view);
    const contentHash = await overlayHash(this.overlay.entries());
    const version = this.versions.add({ id: newId('cs'), contentHash, source, createdBy: createdBy?.userId ?? null, changeSet, files });
    const actor: EventActor = source === 'ai' ? { kind: 'ai' } : createdBy ? userActor(createdBy) : { kind: 'system' };
    this.#deps.emit({
      type: 'change.staged',
      actor,
      payload: { version: version.version, changeSetId: version.id, contentHash, source, files },
    });
    for (const revoked of this.review.revoke('content_changed', { exceptHash: contentHash })) {
      this.#deps.emit({ type: 'approval.revoked', actor: { kind: 'system' }, payload: { ...revoked, reason: 'content_changed' } });
    }
    await mirrorVersion(this.#deps.db, meta, version, null);
    return version;
  }

  #validateVersion(ctx: ProjectContext, view: EffectiveView, version: ChangeVersion): ChangeValidation {
    const validation = this.validateView(ctx, view, version.files);
    this.versions.setValidation(version.version, validation);
    this.#deps.emit({
      type: 'change.validated',
      actor: { kind: 'system' },
      payload: {
        version: version.version,
        changeSetId: version.id,
        valid: validation.valid,
        errorCount: validation.errors.length,
        warningCount: validation.warnings.length,
        summary: summarizeValidation(validation),
      },
    });
    return validation;
  }

  // ---------------------------------------------------------------- change tools

  /** `builder.change.stage`: parse, check against the effective view, write the overlay, record a version. */
  stage(input: unknown, actor: { userId: string; name: string }, source: VersionSource): Promise<StageResult> {
    return this.#exclusive(async () => {
      const meta = this.#requireActive();
      if (this.#applying) throw new ApiError('AI_SESSION_BUSY');
      const parsed = parseChangeSet(input, { targetType: meta.targetType, mode: meta.mode });
      if (!parsed.ok) throw contractError(parsed.errors);
      const ctx = await this.#context();
      const writes = await stagedWrites(parsed.changeSet, createEffectiveView(ctx.baseline, this.overlay.entries()), ctx.baseline);
      this.overlay.stage(writes, source === 'ai' ? 'ai' : 'api');
      // A person who stages by hand authored this draft (the AI's requester is counted by their message).
      if (source !== 'ai') this.requests.addDraftAuthor(actor.userId);
      const view = createEffectiveView(ctx.baseline, this.overlay.entries());
      const version = await this.#recordVersion(view, source, actor, parsed.changeSet);
      return {
        changeSetId: version.id,
        version: version.version,
        contentHash: version.contentHash,
        status: 'staged',
        files: version.files,
        warnings: parsed.warnings,
        // The declared impact is compared, never trusted: a disagreement is a note, not a refusal.
        notes: declaredImpactNotes(parsed.changeSet.impact, parsed.changeSet.operations.flatMap(operationKeys)),
        impact: this.#impactOf(view),
      };
    });
  }

  /** `builder.change.validate`: the shared pipeline over the effective package, for the latest version. */
  validate(changeSetId: string | undefined): Promise<ChangeValidation & { changeSetId: string; version: number }> {
    return this.#exclusive(async () => {
      this.#requireActive();
      const latest = await this.#flushEdits();
      if (!latest || latest.files.length === 0 || this.overlay.size === 0) throw new ApiError('AI_NO_STAGED_CHANGES');
      if (changeSetId !== undefined && changeSetId !== latest.id) this.#staleOrMissing(changeSetId, latest);
      const { ctx, view } = await this.view();
      const validation = this.#validateVersion(ctx, view, latest);
      await mirrorVersion(this.#deps.db, this.#requireMeta(), latest, validation);
      return { ...validation, changeSetId: latest.id, version: latest.version };
    });
  }

  /** `builder.change.discard`: drop the overlay; the latest version becomes `rejected`. */
  discard(actor: EventActor): Promise<{ discarded: true }> {
    return this.#exclusive(async () => {
      this.#requireActive();
      if (this.#applying) throw new ApiError('AI_SESSION_BUSY');
      const latest = this.versions.latest();
      this.#resetOverlay();
      if (latest && latest.status !== 'applied') {
        this.versions.setStatus(latest.version, 'rejected');
        await mirrorVersion(this.#deps.db, this.#requireMeta(), latest, latest.validation, true);
      }
      for (const revoked of this.review.revoke('discarded')) {
        this.#deps.emit({ type: 'approval.revoked', actor: { kind: 'system' }, payload: { ...revoked, reason: 'discarded' } });
      }
      this.#deps.emit({ type: 'change.discarded', actor, payload: { version: latest?.version ?? null } });
      return { discarded: true };
    });
  }

  #resetOverlay(): void {
    this.overlay.clear('reset');
    this.overlay.compact();
    this.#deps.sql.exec('DELETE FROM declared_keys');
    this.#deps.sql.exec("DELETE FROM tasks WHERE name = 'revalidate'");
    this.requests.clearDraftAuthors();
  }

  #staleOrMissing(changeSetId: string, latest: ChangeVersion | undefined): never {
    const named = this.versions.get(changeSetId);
    if (!named) throw new ApiError('AI_CHANGESET_NOT_FOUND');
    if (named.status === 'applied') throw new ApiError('AI_CHANGESET_ALREADY_APPLIED');
    throw new ApiError('AI_CHANGESET_STALE', {
      extra: { latestChangeSetId: latest?.id ?? null, latestVersion: latest?.version ?? null },
      hints: ['Open the latest version, review it, then apply that one.'],
    });
  }

  // ---------------------------------------------------------------- co-editing

  /** A person's Yjs edit landed: re-validate once the edits settle. */
  noteEdit(actor: { userId: string; name: string }): void {
    writeKv(this.#deps.sql, 'lastEditor', actor);
    this.requests.addDraftAuthor(actor.userId);
    this.#deps.schedule('revalidate', Date.now() + REVALIDATE_DEBOUNCE_MS);
  }

  /** When the overlay moved on from the latest version (co-edits), make and validate a new version. */
  async #flushEdits(): Promise<ChangeVersion | undefined> {
    const latest = this.versions.latest();
    const hash = await overlayHash(this.overlay.entries());
    if (latest && latest.contentHash === hash) return latest;
    if (this.overlay.size === 0) return latest;
    const { ctx, view } = await this.view();
    const editor = readKv<{ userId: string; name: string }>(this.#deps.sql, 'lastEditor') ?? null;
    const version = await this.#recordVersion(view, 'edit', editor, null);
    const validation = this.#validateVersion(ctx, view, version);
    await mirrorVersion(this.#deps.db, this.#requireMeta(), version, validation);
    this.#deps.sql.exec("DELETE FROM tasks WHERE name = 'revalidate'");
    return this.versions.latest();
  }

  /** The alarm's debounced task. */
  revalidate(): Promise<void> {
    return this.#exclusive(async () => {
      if (this.status !== 'active' || !this.meta) return;
      await this.#flushEdits();
    });
  }

  // ---------------------------------------------------------------- review

  /** Start or answer a thread (viewers may: reviewers often are). */
  comment(actor: Actor, input: CommentInput) {
    return this.#exclusive(async () => {
      this.#requireMeta();
      return this.#reviewer.comment(actor, input);
    });
  }

  setThreadStatus(actor: Actor, threadId: string, status: 'open' | 'resolved') {
    return this.#exclusive(async () => {
      this.#requireMeta();
      return this.#reviewer.setThreadStatus(actor, threadId, status);
    });
  }

  /** The latest version, when it is the one the reviewer saw (same id and content hash). */
  async #reviewedVersion(input: { changeSetId: string; contentHash: string }): Promise<ChangeVersion> {
    const latest = await this.#flushEdits();
    if (!latest || latest.id !== input.changeSetId) this.#staleOrMissing(input.changeSetId, latest);
    if (latest.status === 'applied') throw new ApiError('AI_CHANGESET_ALREADY_APPLIED');
    if (latest.contentHash !== input.contentHash) {
      throw new ApiError('AI_CHANGESET_STALE', { message: 'The content you reviewed is not the content of this version.' });
    }
    return latest;
  }

  approve(actor: Actor, input: { changeSetId: string; contentHash: string }) {
    return this.#exclusive(async () => {
      this.#requireActive();
      this.#requireEditor(actor);
      const latest = await this.#reviewedVersion(input);
      this.#reviewer.requireReviewer(actor);
      if (latest.status !== 'validated') {
        throw new ApiError('AI_VALIDATION_FAILED', {
          message: 'Only a version that passed validation can be approved.',
          hints: ['Validate the staged changes and fix what it reports first.'],
        });
      }
      this.#reviewer.approve(actor, latest);
      return { changeSetId: latest.id, approvals: this.review.approvals(latest.contentHash) };
    });
  }

  withdrawApproval(actor: Actor) {
    return this.#exclusive(async () => {
      this.#requireMeta();
      for (const revoked of this.review.revoke('withdrawn', { userId: actor.userId })) {
        this.#deps.emit({ type: 'approval.revoked', actor: userActor(actor), payload: { ...revoked, reason: 'withdrawn' } });
      }
      return { withdrawn: true };
    });
  }

  /** "Request changes" on the version the reviewer saw: blocks Apply until approved, withdrawn or dismissed. */
  requestChanges(actor: Actor, input: { changeSetId: string; contentHash: string; body: string }) {
    return this.#exclusive(async () => {
      this.#requireActive();
      this.#requireEditor(actor);
      const latest = await this.#reviewedVersion(input);
      return { changeSetId: latest.id, ...this.#reviewer.requestChanges(actor, latest, input.body) };
    });
  }

  withdrawChangeRequest(actor: Actor) {
    return this.#exclusive(async () => {
      this.#requireMeta();
      return this.#reviewer.withdrawRequest(actor);
    });
  }

  dismissChangeRequest(actor: Actor, requestId: string, reason: string) {
    return this.#exclusive(async () => {
      this.#requireMeta();
      return this.#reviewer.dismissRequest(actor, requestId, reason);
    });
  }

  /** An owner lets the version they saw apply without the required approvals (recorded with a reason). */
  overrideApprovals(actor: Actor, input: { changeSetId: string; contentHash: string; reason: string }) {
    return this.#exclusive(async () => {
      this.#requireActive();
      const latest = await this.#reviewedVersion(input);
      const ctx = await this.#context();
      return this.#reviewer.override(actor, latest, ctx.requiredApprovals, input.reason);
    });
  }

  // ---------------------------------------------------------------- apply and cancel

  apply(actor: Actor, request: ApplyRequest): Promise<ApplyResult> {
    // Marked before queueing, so a cancel sent while this apply waits or runs is refused at once.
    if (this.#applying) return Promise.reject(new ApiError('AI_SESSION_BUSY'));
    this.#applying = true;
    return this.#exclusive(async (): Promise<ApplyResult> => {
      const meta = this.#requireActive();
      this.#requireEditor(actor);
      const turn = this.turns.open();
      if (turn) {
        throw new ApiError('AI_TURN_IN_PROGRESS', {
          message: 'The AI is still working in this session; apply once it has finished (or stop it).',
          extra: { turnId: turn.id },
        });
      }
      const latest = await this.#flushEdits();
      if (!latest || latest.id !== request.changeSetId) this.#staleOrMissing(request.changeSetId, latest);
      if (latest.status === 'applied') throw new ApiError('AI_CHANGESET_ALREADY_APPLIED');
      if (request.contentHash !== undefined && request.contentHash !== latest.contentHash) {
        throw new ApiError('AI_CHANGESET_STALE', { message: 'The content you reviewed is not the content of this version.' });
      }
      if (this.overlay.size === 0 || latest.files.length === 0) throw new ApiError('AI_NO_STAGED_CHANGES');
      {
        const { ctx, view } = await this.view();
        // Re-validate on the baseline as it is now: someone may have saved since the last validation.
        const files = changedFiles(view);
        const validation = this.validateView(ctx, view, files);
        this.versions.setValidation(latest.version, validation);
        if (!validation.valid) {
          await mirrorVersion(this.#deps.db, meta, latest, validation);
          throw new ApiError('AI_VALIDATION_FAILED', {
            details: validation.errors.map((e) => ({ code: e.code, path: e.path, message: e.message, ...(e.hints[0] ? { hint: e.hints[0] } : {}) })),
            hints: ['Fix the reported problems (or ask the AI to), then apply the new version.'],
          });
        }
        const gate = this.#reviewer.gate(latest, ctx.requiredApprovals);
        if (gate.block) {
          throw new ApiError(gate.block.code, {
            message: gate.block.message,
            extra: { required: ctx.requiredApprovals, approvals: gate.counted, changeRequests: gate.requests.length },
          });
        }
        let outcome;
        try {
          outcome = await applyChanges({
            db: this.#deps.db,
            view,
            files,
            session: meta,
            actor,
            changeSetId: latest.id,
            version: latest.version,
            contentHash: latest.contentHash,
            changeSetJson: JSON.stringify(latest.changeSet ?? { files }),
            validationJson: JSON.stringify(validation),
            revisionBase: request.revisionBase,
          });
        } catch (error) {
          // Every socket, the HTTP body and the audit get a code and a plain message; the
          // error's own text (a failed query with its parameters) goes only, redacted, to the log.
          const cause =
            error instanceof ApiError
              ? { code: error.code, message: error.message }
              : { code: 'INTERNAL_ERROR' as const, message: ERROR_CODES.INTERNAL_ERROR.message };
          if (!(error instanceof ApiError)) logError('ai session: apply failed', error, { sessionId: meta.sessionId, version: latest.version });
          await auditApplyFailed(this.#deps.db, meta, actor.userId, latest, cause.code);
          this.#deps.emit({ type: 'apply.failed', actor: userActor(actor), payload: { version: latest.version, code: 'AI_APPLY_FAILED', message: cause.message } });
          throw new ApiError('AI_APPLY_FAILED', {
            extra: { cause: cause.message, causeCode: cause.code },
            hints:
              error instanceof ApiError && error.code === 'REVISION_CONFLICT'
                ? ['Someone saved while the changes were being applied. Apply again.']
                : ['Nothing was changed. Try again; if it keeps failing, tell an administrator.'],
            cause: error,
          });
        }
        this.versions.setStatus(latest.version, 'applied');
        this.#resetOverlay();
        for (const revoked of this.review.revoke('applied')) {
          this.#deps.emit({ type: 'approval.revoked', actor: { kind: 'system' }, payload: { ...revoked, reason: 'applied' } });
        }
        this.#deps.emit({
          type: 'change.applied',
          actor: userActor(actor),
          payload: { version: latest.version, changeSetId: latest.id, newRevision: outcome.newRevision, warnings: outcome.warnings, files },
        });
        return { applied: true, sessionStatus: 'active', changeSetId: latest.id, newRevision: outcome.newRevision, warnings: outcome.warnings };
      }
    }).finally(() => {
      this.#applying = false;
    });
  }

  /** Cancel: discard the overlay, mark the session cancelled; business tables are not touched. */
  async cancel(actor: Actor): Promise<{ status: SessionStatus }> {
    // Refused at once while an apply runs (rather than queued behind it).
    if (this.#applying) throw new ApiError('AI_SESSION_BUSY');
    return this.#exclusive(async () => {
      const meta = this.#requireMeta();
      this.#requireEditor(actor);
      if (this.status === 'cancelled') return { status: 'cancelled' as const };
      // D1 first: if it fails, the session is still active with its overlay.
      await recordCancel(this.#deps.db, meta, actor.userId);
      this.#resetOverlay();
      writeKv(this.#deps.sql, 'status', 'cancelled');
      this.#deps.emit({ type: 'session.cancelled', actor: userActor(actor), payload: {} });
      return { status: 'cancelled' as const };
    });
  }

  // ---------------------------------------------------------------- reads

  async state(options: { messagesBefore?: number | undefined; messagesLimit?: number | undefined } = {}): Promise<SessionView> {
    const meta = this.#requireMeta();
    const latest = this.versions.latest();
    const current = latest && latest.status !== 'applied' && this.overlay.size > 0 ? latest : null;
    const hash = await overlayHash(this.overlay.entries());
    const { ctx, view } = await this.view();
    const threads = this.review.threads({
      doc: this.overlay.doc,
      textOf: (key) => this.overlay.textOf(key),
      lineCount: (key) => {
        const text = contentOf(view.pkg, key);
        return text === null ? null : lineCount(text);
      },
    });
    const approvals = current ? this.review.approvals(current.contentHash) : [];
    const gate = this.#reviewer.gate(current, ctx.requiredApprovals);
    const limit = Math.min(Math.max(options.messagesLimit ?? 50, 1), 200);
    const rows = this.turns.conversation({ before: options.messagesBefore, limit: limit + 1 });
    const page = rows.slice(-limit);
    const turn = this.turns.latest();
    return {
      meta,
      status: this.status,
      lastSeq: this.log.lastSeq(),
      latestSuggestion: current ? versionView(current) : null,
      validation: current?.validation ?? null,
      pendingEdits: this.overlay.size > 0 && (!latest || latest.contentHash !== hash),
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
      usage: { session: this.turns.sessionUsage(), tokenBudget: this.turns.tokenBudget() },
    };
  }

  /** The impact of the whole overlay, derived from its files (shared/ai/change-impact.ts). */
  #impactOf(view: EffectiveView): ChangeImpactView {
    const meta = this.#requireMeta();
    const files = changedFiles(view).map((f) => ({
      key: f.key,
      ...(f.path === undefined ? {} : { path: f.path }),
      before: contentOf(view.baseline.pkg, f.key),
      after: f.action === 'D' ? null : contentOf(view.pkg, f.key),
    }));
    return computeImpact(files, {
      target: { targetType: meta.targetType, workflowId: meta.workflowId, targetId: meta.targetId, mode: meta.mode },
      assetPaths: new Set(view.pkg.assets.map((a) => a.path)),
    });
  }

  /** Baseline and staged text of every changed file: what the diff shows (large contents go over HTTP, not the socket). */
  async changes(): Promise<ChangesView> {
    this.#requireMeta();
    const { view } = await this.view();
    const latest = this.versions.latest();
    const files = changedFiles(view).map((f) => ({
      ...f,
      before: contentOf(view.baseline.pkg, f.key),
      after: f.action === 'D' ? null : contentOf(view.pkg, f.key),
    }));
    const contentHash = await overlayHash(this.overlay.entries());
    const current = latest && latest.contentHash === contentHash && latest.status !== 'applied' ? latest : null;
    return { changeSetId: current?.id ?? null, version: current?.version ?? null, contentHash, files, impact: this.#impactOf(view) };
  }
}
