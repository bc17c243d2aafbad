/**
 * The session itself, apart from sockets: its meta and status, the overlay, change-set versions,
 * validation, shared review, apply and cancel. Every observable step goes through `emit`, which
 * appends to the event log before anything is broadcast. Mutations run one at a time (a promise
 * chain), so two stages or a stage and an apply never interleave at an await.
 *
 * SessionCore holds the state and that queue and delegates each idea to a collaborator beside it:
 * co-edit.ts (versions), change-commands.ts (stage, validate, discard), review-commands.ts,
 * session-apply.ts (apply, cancel) and session-views.ts (what the session shows).
 */
import type { Locale } from '../../shared/i18n/locales.ts';
import { ApiError } from '../../shared/api-error.ts';
import { validatePackage, type ValidationReport } from '../../shared/bmad/index.ts';
import { impactBoundaryStage } from '../../shared/ai/impact-stage.ts';
import { toChangeValidation, type ChangeValidation } from '../../shared/ai/validation-result.ts';
import type { EventActor } from '../../shared/ai/events.ts';
import type { SessionMeta, SessionStatus } from '../../shared/ai/session.ts';
import type { ChangedFile } from '../../shared/ai/overlay.ts';
import type { ChangesView } from '../../shared/api/ai-session-views.ts';
import type { ProjectContext } from './overlay/baseline.ts';
import { BaselineCache } from './overlay/baseline-cache.ts';
import { checkTargetInBaseline } from './target-check.ts';
import { ChangeCommands } from './change-commands.ts';
import { RebaseCommands } from './rebase-commands.ts';
import type { RebaseResult, ResolveRebaseInput, ResolveRebaseResult } from '../../shared/api/ai-rebase.ts';
import { CoEdit } from './co-edit.ts';
import { createEffectiveView, keyOfPath, pathOf, type EffectiveView } from './overlay/effective-view.ts';
import { EventLog } from './events/event-log.ts';
import { OverlayDoc } from './overlay/overlay-doc.ts';
import { ReviewCommands, type CommentInput } from './review/review-commands.ts';
import { ReviewStore } from './review/review.ts';
import { ChangeRequestStore } from './review/change-requests.ts';
import { ReviewService } from './review/review-service.ts';
import { CommentRate } from './review/comment-rate.ts';
import { SessionApply } from './apply/session-apply.ts';
import type { SessionDeps, SessionHost } from './session-host.ts';
import { SessionViews, type StateOptions } from './session-views.ts';
import { readKv, writeKv } from './storage.ts';
import { VersionStore, type VersionSource } from './overlay/versions.ts';
import { TurnStore } from './loop/turn-store.ts';
import { CheckpointStore } from './overlay/checkpoints.ts';
import { CheckpointCommands } from './checkpoint-commands.ts';
import type { CompareSide, CompareView, RestoreResult, VersionsTimelineView } from '../../shared/api/ai-versions.ts';
import { UndoCommands } from './undo-commands.ts';
import { KeepMarkStore } from './review/keep-marks.ts';
import type { KeepInput, KeepMark, UndoInput, UndoResult } from '../../shared/api/ai-undo.ts';
import { undoGraphPart, type GraphUndoResult } from './graph-undo.ts';
import type { GraphUndoInput } from '../../shared/api/ai-sessions.ts';
import type { Actor, ApplyRequest, ApplyResult, FileDiff, ReviewedVersion, SessionView, StageResult, TurnView, VersionView } from '../../shared/ai/session-rpc.ts';

export type { Actor, ApplyRequest, ApplyResult, FileDiff, SessionView, StageResult, TurnView, VersionView };
export type { SessionDeps } from './session-host.ts';
export { REVALIDATE_DEBOUNCE_MS } from './co-edit.ts';

export class SessionCore {
  readonly overlay: OverlayDoc;
  readonly log: EventLog;
  readonly versions: VersionStore;
  readonly review: ReviewStore;
  readonly requests: ChangeRequestStore;
  /** The AI turns' checkpoints and the conversation (loop/turn-store.ts). */
  readonly turns: TurnStore;
  /** The draft's checkpoint per version (overlay/checkpoints.ts). */
  readonly checkpoints: CheckpointStore;
  /** The sender's interface language per accepted turn, until its prompt is composed (loop/compose-prompt.ts). */
  readonly senderLocales = new Map<string, Locale | null>();
  readonly #deps: SessionDeps;
  readonly #edits: CoEdit;
  readonly #changes: ChangeCommands;
  readonly #rebase: RebaseCommands;
  readonly #reviews: ReviewCommands;
  readonly #apply: SessionApply;
  readonly #views: SessionViews;
  readonly #checkpointCommands: CheckpointCommands;
  readonly #baseline: BaselineCache;
  readonly #undo: UndoCommands;
  readonly #keeps: KeepMarkStore;
  readonly #host: SessionHost;
  #queue: Promise<unknown> = Promise.resolve();
  #applying = false;
  #baselineReport: { key: string; report: ValidationReport } | null = null;
  #meta: SessionMeta | undefined;

  constructor(deps: SessionDeps) {
    this.#deps = deps;
    this.#baseline = new BaselineCache(deps.sql, deps.db);
    this.overlay = new OverlayDoc(deps.sql);
    this.log = new EventLog(deps.sql);
    this.versions = new VersionStore(deps.sql);
    this.review = new ReviewStore(deps.sql);
    this.requests = new ChangeRequestStore(deps.sql);
    this.turns = new TurnStore(deps.sql);
    this.checkpoints = new CheckpointStore(deps.sql);
    const reviewer = new ReviewService({
      db: deps.db,
      review: this.review,
      requests: this.requests,
      overlay: this.overlay,
      emit: deps.emit,
      meta: () => this.#requireMeta(),
      commentRate: new CommentRate(deps.commentsPerMinute),
    });
    const host: SessionHost = {
      ...deps,
      overlay: this.overlay,
      versions: this.versions,
      review: this.review,
      requests: this.requests,
      reviewer,
      turns: this.turns,
      checkpoints: this.checkpoints,
      status: () => this.status,
      applying: () => this.#applying,
      requireMeta: () => this.#requireMeta(),
      requireActive: () => this.#requireActive(),
      context: () => this.#context(),
      baselineMoved: () => this.baselineMoved(),
      view: () => this.view(),
      validateView: (ctx, view, files) => this.validateView(ctx, view, files),
    };
    this.#host = host;
    this.#edits = new CoEdit(host);
    this.#changes = new ChangeCommands(host, this.#edits);
    this.#rebase = new RebaseCommands(host, this.#edits);
    this.#reviews = new ReviewCommands(host, this.#edits);
    this.#apply = new SessionApply(host, this.#edits);
    this.#views = new SessionViews(host, this.log);
    this.#checkpointCommands = new CheckpointCommands(host, this.#edits);
    this.#undo = new UndoCommands(host, this.#edits);
    this.#keeps = new KeepMarkStore(deps.sql);
  }

  /** True while an apply waits or runs. */
  get applying(): boolean {
    return this.#applying;
  }

  /** Written once (init) and never changed: kept after the first read (each event and frame asks). */
  get meta(): SessionMeta | undefined {
    this.#meta ??= readKv<SessionMeta>(this.#deps.sql, 'meta');
    return this.#meta;
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

  /**
   * A new session: load the baseline (kept for the session's first reads, so the context envelope
   * costs no query), check the target exists in it, then record the session. A retried create only
   * renames the creator. A refused target records nothing (the object drops the baseline it kept).
   */
  /** `context`: the project context the Worker read with who-is-asking; kept instead of reading D1 (issue 19). */
  async create(meta: SessionMeta, creatorName: string, userPrompt: string | null, context?: ProjectContext): Promise<void> {
    if (!this.meta) {
      if (context?.baseline.projectId === meta.projectId) this.#baseline.keep(context);
      const ctx = await this.#baseline.get(meta.projectId, true);
      checkTargetInBaseline(ctx.baseline.pkg, meta);
    }
    this.setCreatorName(creatorName);
    this.init(meta, userPrompt);
  }

  setCreatorName(name: string): void {
    writeKv(this.#deps.sql, 'creatorName', name);
  }

  /** Kept while the session is active (the project channel tells only active sessions of a move). */
  async #context(): Promise<ProjectContext> {
    return this.#baseline.get(this.#requireMeta().projectId, this.status === 'active');
  }

  /** The project channel's `baselineMoved` (or this session's own apply): the next read goes to D1. */
  baselineMoved(): void {
    this.#baseline.invalidate();
  }

  #baselineValidation(ctx: ProjectContext): ValidationReport {
    const key = JSON.stringify(ctx.baseline.revisions);
    if (this.#baselineReport?.key !== key) this.#baselineReport = { key, report: validatePackage(ctx.baseline.pkg) };
    return this.#baselineReport.report;
  }

  /** The effective view over the baseline as it is now (kept until the project moves). */
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
    // The baseline's report only sorts errors into new and pre-existing: with none, the stored package is not validated.
    const baseline = report.errors.length > 0 && !report.schemaFailed ? this.#baselineValidation(ctx) : undefined;
    return toChangeValidation(report, { baseline, keyOfPath: (p) => keyOfPath(view.pkg, p) });
  }

  // ---------------------------------------------------------------- change tools (change-commands.ts)

  /** `builder.change.stage`: parse, check against the effective view, write the overlay, record a version. */
  stage(input: unknown, actor: { userId: string; name: string }, source: VersionSource): Promise<StageResult> {
    return this.#exclusive(() => this.#changes.stage(input, actor, source));
  }

  /** `builder.change.validate`: the shared pipeline over the effective package, for the latest version. */
  validate(changeSetId: string | undefined): Promise<ChangeValidation & { changeSetId: string; version: number }> {
    return this.#exclusive(() => this.#changes.validate(changeSetId));
  }

  /** `builder.change.discard`: drop the overlay; the latest version becomes `rejected`. */
  discard(actor: EventActor): Promise<{ discarded: true }> {
    return this.#exclusive(() => this.#changes.discard(actor));
  }

  // ---------------------------------------------------------------- new baseline (rebase-commands.ts)

  /** Merge the staged files whose baseline moved onto it; clean ones become one version, conflicts come back. */
  rebase(actor: Actor): Promise<RebaseResult> {
    return this.#exclusive(() => this.#rebase.rebase(actor));
  }

  /** A person's resolution of one conflicted file. */
  resolveRebase(actor: Actor, input: ResolveRebaseInput): Promise<ResolveRebaseResult> {
    return this.#exclusive(() => this.#rebase.resolve(actor, input));
  }

  /** Undo one node or edge of a staged graph back to the stored package, as a new version (graph-undo.ts). */
  undoGraphPart(actor: Actor, input: GraphUndoInput): Promise<GraphUndoResult> {
    return this.#exclusive(() => undoGraphPart(this.#host, this.#edits, actor, input));
  }

  // ---------------------------------------------------------------- co-editing (co-edit.ts)

  /** A person's Yjs edit landed: re-validate once the edits settle. */
  noteEdit(actor: { userId: string; name: string }): void {
    this.#edits.noteEdit(actor);
  }

  /** The session object's write-behind timer: append the relayed keystrokes and move the debounce. */
  persistEdits(): void {
    this.#edits.persistEdits();
  }

  /** The alarm's debounced task. */
  revalidate(): Promise<void> {
    return this.#exclusive(async () => {
      if (this.status !== 'active' || !this.meta) return;
      await this.#edits.flushEdits();
    });
  }

  // ---------------------------------------------------------------- review (review-commands.ts)

  comment(actor: Actor, input: CommentInput) {
    return this.#exclusive(() => this.#reviews.comment(actor, input));
  }

  setThreadStatus(actor: Actor, threadId: string, status: 'open' | 'resolved') {
    return this.#exclusive(() => this.#reviews.setThreadStatus(actor, threadId, status));
  }

  approve(actor: Actor, input: ReviewedVersion) {
    return this.#exclusive(() => this.#reviews.approve(actor, input));
  }

  withdrawApproval(actor: Actor) {
    return this.#exclusive(() => this.#reviews.withdrawApproval(actor));
  }

  requestChanges(actor: Actor, input: ReviewedVersion & { body: string }) {
    return this.#exclusive(() => this.#reviews.requestChanges(actor, input));
  }

  withdrawChangeRequest(actor: Actor) {
    return this.#exclusive(() => this.#reviews.withdrawChangeRequest(actor));
  }

  dismissChangeRequest(actor: Actor, requestId: string, reason: string) {
    return this.#exclusive(() => this.#reviews.dismissChangeRequest(actor, requestId, reason));
  }

  overrideApprovals(actor: Actor, input: ReviewedVersion & { reason: string }) {
    return this.#exclusive(() => this.#reviews.overrideApprovals(actor, input));
  }

  // ---------------------------------------------------------------- keep and undo (undo-commands.ts, review/keep-marks.ts)

  /** Undo one file or one hunk of the draft back to the baseline, as a new version. */
  undo(actor: Actor, input: UndoInput): Promise<UndoResult> {
    return this.#exclusive(() => this.#undo.undo(actor, input));
  }

  /** Undo an undo. */
  reapplyUndo(actor: Actor, undoId: string): Promise<UndoResult> {
    return this.#exclusive(() => this.#undo.reapply(actor, undoId));
  }

  /** Mark a file or hunk as reviewed by this person (or clear the mark); changes no content. */
  setKeepMark(actor: Actor, input: KeepInput): KeepMark[] {
    this.#requireActive();
    this.#keeps.set(actor.userId, { objectKey: input.objectKey, hash: input.hash, scope: input.scope, version: this.versions.latest()?.version ?? null }, input.kept);
    return this.#keeps.list(actor.userId);
  }

  keepMarks(actor: Actor): KeepMark[] {
    this.#requireMeta();
    return this.#keeps.list(actor.userId);
  }

  // ---------------------------------------------------------------- apply and cancel (session-apply.ts)

  apply(actor: Actor, request: ApplyRequest): Promise<ApplyResult> {
    // Marked before queueing, so a cancel sent while this apply waits or runs is refused at once.
    if (this.#applying) return Promise.reject(new ApiError('AI_SESSION_BUSY'));
    this.#applying = true;
    return this.#exclusive(() => this.#apply.apply(actor, request)).finally(() => {
      this.#applying = false;
    });
  }

  /** Cancel: discard the overlay, mark the session cancelled; business tables are not touched. */
  async cancel(actor: Actor): Promise<{ status: SessionStatus }> {
    // Refused at once while an apply runs (rather than queued behind it).
    if (this.#applying) throw new ApiError('AI_SESSION_BUSY');
    return this.#exclusive(() => this.#apply.cancel(actor));
  }

  // ---------------------------------------------------------------- reads (session-views.ts)

  state(options: StateOptions = {}): Promise<SessionView> {
    return this.#views.state(options);
  }

  /** Baseline and staged text of every changed file: what the diff shows. */
  changes(): Promise<ChangesView> {
    return this.#views.changes();
  }

  // ---------------------------------------------------------------- checkpoints (checkpoint-commands.ts)

  versionsTimeline(): VersionsTimelineView {
    return this.#checkpointCommands.timeline();
  }

  compareVersions(from: CompareSide, to: CompareSide): Promise<CompareView> {
    return this.#checkpointCommands.compare(from, to);
  }

  /** Restore the draft to a version's checkpoint, as a new version (refused while a turn is open). */
  restoreVersion(actor: Actor, version: number): Promise<RestoreResult> {
    if (this.#applying) return Promise.reject(new ApiError('AI_SESSION_BUSY'));
    return this.#exclusive(() => this.#checkpointCommands.restore(actor, version));
  }
}
