/**
 * The workbench's state for one target and mode: the AI session it works in, the
 * stored view (`GET …/sessions/:sid`), the turns folded from the live socket, who else is here,
 * the staged changes, and the actions (send, stop, apply, discard). The route's `Workbench`
 * component creates one per visit and hands it to its panes; nothing here touches the DOM, so
 * the API and the socket can be swapped for fakes.
 * Just over 400 lines: one state class whose actions share its fields; its parts that stand alone
 * (polling, coalescing, target matching, stale events) already live in their own files.
 */
import { atLeast, type Role } from '../../../shared/api/roles.ts';
import type { SessionEvent } from '../../../shared/ai/events.ts';
import type { ContextSummary } from '../../../shared/ai/turn.ts';
import type { ErrorBody } from '../../../shared/errors.ts';
import type { PresenceEntry } from '../../../shared/protocol.ts';
import type { AiTarget } from '../ai-target.ts';
import { buildConversation, type AwaitingTurn, type ConversationItem } from './conversation.ts';
import { LiveFeed } from './live-feed.svelte.ts';
import { foldLifecycle, NO_LIFECYCLE, type Lifecycle } from './lifecycle.ts';
import { sessionsApi, type SessionsApi } from './sessions-api.ts';
import { isOpen, isRunning, type TurnActivity } from './turn-log.ts';
import { Coalesced } from './coalesced.ts';
import { matchesTarget } from './session-target.ts';
import { REFRESH_ON } from './stale-events.ts';
import { PollTimer } from './poll-timer.ts';
import { isUnreachable } from '../local-error.ts';
import type { WorkbenchAction, WorkbenchOptions, WorkbenchPhase } from './workbench-options.ts';
import type { ApplyResultView, ChangesView, SessionStateView } from './types.ts';

export type { WorkbenchAction, WorkbenchOptions, WorkbenchPhase };

export class WorkbenchSession {
  readonly projectId: string;
  readonly target: AiTarget;
  readonly role: Role;
  readonly userId: string | null;
  readonly #readOnly: boolean;
  /** The live socket: its status, the folded turns, who is here. */
  readonly feed: LiveFeed;
  readonly #api: SessionsApi;
  /** Looks again for a session while there is none (someone else may start it). */
  readonly #poll: PollTimer;

  #phase = $state<WorkbenchPhase>('finding');
  #sessionId = $state<string | null>(null);
  #view = $state.raw<SessionStateView | null>(null);
  #changes = $state.raw<ChangesView | null>(null);
  #errors = $state.raw<Partial<Record<WorkbenchAction, ErrorBody>>>({});
  /** The socket's open count when the last error was kept (see `errorOf`). */
  #errorOpens = 0;
  #pending = $state<WorkbenchAction | null>(null);
  #awaiting = $state.raw<AwaitingTurn | null>(null);
  #applyResult = $state.raw<ApplyResultView | null>(null);
  #lifecycle = $state.raw<Lifecycle>(NO_LIFECYCLE);
  readonly #fixedSessionId: string | null;

  readonly #eventListeners = new Set<(fresh: SessionEvent[], replay: boolean) => void>();
  #disposed = false;
  /** Refreshes run one at a time; a request during one runs once more after it. */
  readonly #refresh = new Coalesced(
    () => this.#load(),
    () => this.#disposed,
  );

  constructor(options: WorkbenchOptions) {
    this.projectId = options.projectId;
    this.target = options.target;
    this.role = options.role;
    this.userId = options.userId;
    this.#api = options.api ?? sessionsApi;
    this.feed = new LiveFeed(options.connect);
    this.#poll = new PollTimer(options.pollMs ?? 5_000);
    this.#fixedSessionId = options.sessionId ?? null;
    this.#readOnly = options.readOnly ?? false;
  }

  // ------------------------------------------------------------------------------- reading

  get phase(): WorkbenchPhase {
    return this.#phase;
  }
  get sessionId(): string | null {
    return this.#sessionId;
  }
  get view(): SessionStateView | null {
    return this.#view;
  }
  get changes(): ChangesView | null {
    return this.#changes;
  }
  get pending(): WorkbenchAction | null {
    return this.#pending;
  }
  get applyResult(): ApplyResultView | null {
    return this.#applyResult;
  }
  /** Watch only (a past session opened from the sessions page). */
  get readOnly(): boolean {
    return this.#readOnly;
  }
  /** Who applied the session (as which revision) and who ended it, from its events. */
  get lifecycle(): Lifecycle {
    return this.#lifecycle;
  }
  get applyFailure(): { code: string; message: string } | null {
    return this.feed.log.applyFailure;
  }
  errorOf(action: WorkbenchAction): ErrorBody | null {
    const error = this.#errors[action] ?? null;
    // "Could not reach the server" is over once the socket opened again after it.
    if (isUnreachable(error) && this.feed.opens > this.#errorOpens) return null;
    return error;
  }

  /** The role in force: what the live socket last said (an owner may change it while we are here). */
  get liveRole(): Role {
    return this.feed.you?.role ?? this.role;
  }

  /** Editors and owners send, stop, apply and discard; viewers watch. */
  get canEdit(): boolean {
    return !this.readOnly && atLeast(this.liveRole, 'editor');
  }

  /** The session's creator may stop its turns whatever their role now. */
  get isCreator(): boolean {
    return this.#view !== null && this.userId !== null && this.#view.meta.createdBy === this.userId;
  }

  // (The `$derived.by` closures below read `this.feed`, which the constructor sets.)
  readonly active = $derived.by(() => (this.#view?.status ?? 'active') === 'active' && !this.feed.log.cancelled);

  readonly latestTurn = $derived.by<TurnActivity | undefined>(() => this.feed.log.turns.at(-1));

  /** A turn occupies the session (running, or paused by the budget): no new message, no apply. */
  readonly turnOpen = $derived.by(() => {
    if (this.#awaiting !== null) return true;
    if (this.feed.replayed) return isOpen(this.latestTurn);
    const status = this.#view?.turn?.status;
    return status === 'running' || status === 'paused';
  });

  /** A turn is working right now (for the status line). */
  readonly turnRunning = $derived.by(() => this.#awaiting !== null || (this.feed.replayed ? isRunning(this.latestTurn) : this.#view?.turn?.status === 'running'));

  readonly canSend = $derived(this.canEdit && this.active && !this.turnOpen && this.#pending === null && (this.#phase === 'ready' || this.#phase === 'none'));
  readonly canStop = $derived(!this.readOnly && this.turnOpen && this.#awaiting === null && (this.canEdit || this.isCreator));

  readonly conversation = $derived.by<ConversationItem[]>(() => buildConversation(this.#view?.messages.items ?? [], this.feed.log.turns, this.#awaiting));

  /** What was sent to the model in the latest turn that got that far (the "Context sent" panel). */
  readonly context = $derived.by<ContextSummary | null>(
    () => this.feed.log.turns.findLast((t) => t.context !== null)?.context ?? this.#view?.turn?.context ?? null,
  );

  /** The version Apply would apply: validated, what the diff shows, nothing running. */
  readonly applicable = $derived.by(() => {
    const view = this.#view;
    const suggestion = view?.latestSuggestion;
    if (!view || !suggestion) return null;
    if (suggestion.status !== 'validated' || view.validation?.valid !== true || view.pendingEdits) return null;
    if (this.#changes?.changeSetId !== suggestion.changeSetId) return null;
    return suggestion;
  });

  /** Why the review blocks Apply (approvals missing, changes requested): the session's own words. */
  readonly reviewBlock = $derived.by(() => (this.applicable ? (this.#view?.review.block ?? null) : null));

  readonly canApply = $derived(
    this.canEdit && this.active && this.applicable !== null && this.reviewBlock === null && !this.turnOpen && this.#pending === null,
  );
  readonly canDiscard = $derived(this.canEdit && this.active && (this.#changes?.files.length ?? 0) > 0 && !this.turnOpen && this.#pending === null);

  /** Other people on the session's socket right now, once each. */
  readonly others = $derived.by(() => {
    const me = this.feed.you?.userId ?? this.userId;
    const seen = new Map<string, PresenceEntry>();
    for (const entry of this.feed.presence) if (entry.userId !== me && !seen.has(entry.userId)) seen.set(entry.userId, entry);
    return [...seen.values()];
  });

  // ------------------------------------------------------------------------------- actions

  /** Find the active session for this target and mode; attach to it, or wait for one. */
  async open(): Promise<void> {
    this.#poll.clear();
    if (this.#fixedSessionId !== null) return this.#attach(this.#fixedSessionId);
    const result = await this.#api.list(this.projectId, 'active');
    // Meanwhile the page was left, or a first message started (or is starting) a session.
    if (this.#disposed || this.#sessionId !== null || this.#pending === 'send') return;
    if (!result.ok) {
      this.#setError('load', result.error);
      this.#phase = 'failed';
      return;
    }
    this.#setError('load', null);
    const matching = result.data.sessions.filter((s) => s.status === 'active' && matchesTarget(s, this.target));
    // Your own session first; otherwise the newest anyone started (viewers and co-editors join it).
    const found = matching.find((s) => s.createdBy === this.userId) ?? matching[0];
    if (found) {
      await this.#attach(found.sessionId);
    } else {
      this.#phase = 'none';
      this.#schedulePoll();
    }
  }

  /** Send a message; an editor's first message starts the session. Resolves true once accepted. */
  async send(content: string, suggestOnly: boolean): Promise<boolean> {
    const text = content.trim();
    if (!this.canSend || text === '') return false;
    this.#pending = 'send';
    this.#setError('send', null);
    try {
      let sessionId = this.#sessionId;
      if (sessionId === null) {
        this.#poll.clear();
        const created = await this.#api.create(this.projectId, this.target);
        if (!created.ok) {
          this.#setError('send', created.error);
          this.#schedulePoll();
          return false;
        }
        sessionId = created.data.sessionId;
        await this.#attach(sessionId);
      }
      const sent = await this.#api.send(this.projectId, sessionId, text, suggestOnly && this.target.targetType === 'workflow');
      if (!sent.ok) {
        this.#setError('send', sent.error);
        return false;
      }
      this.#applyResult = null;
      if (!this.feed.log.turns.some((t) => t.turnId === sent.data.turnId)) this.#awaiting = { turnId: sent.data.turnId, content: text };
      void this.refresh();
      return true;
    } finally {
      this.#pending = null;
    }
  }

  /** Stop the running (or paused) turn: over HTTP for editors, on the socket for its creator. */
  async stop(): Promise<void> {
    const sessionId = this.#sessionId;
    if (!this.canStop || sessionId === null) return;
    this.#setError('stop', null);
    if (!this.canEdit) {
      this.feed.stop();
      return;
    }
    this.#pending = 'stop';
    try {
      const result = await this.#api.stop(this.projectId, sessionId);
      if (!result.ok && result.error.code !== 'AI_TURN_NOT_RUNNING') this.#setError('stop', result.error);
    } finally {
      this.#pending = null;
    }
  }

  /** Apply the validated version the diff shows (`confirmSource: ui_manual_apply`). */
  async apply(): Promise<void> {
    const version = this.applicable;
    const sessionId = this.#sessionId;
    if (!this.canApply || !version || sessionId === null) return;
    this.#pending = 'apply';
    this.#setError('apply', null);
    this.#applyResult = null;
    try {
      // The revisions the shown diff was read at: a save after that still warns (AI_REVISION_BASE_MISMATCH).
      const revisionBase = this.#changes?.baseline?.revisionBase;
      const result = await this.#api.apply(this.projectId, sessionId, { changeSetId: version.changeSetId, contentHash: version.contentHash, revisionBase });
      if (result.ok) this.#applyResult = result.data;
      else this.#setError('apply', result.error);
    } finally {
      this.#pending = null;
    }
    await this.refresh();
  }

  /** Drop everything staged; the conversation goes on. */
  async discard(): Promise<void> {
    const sessionId = this.#sessionId;
    if (!this.canDiscard || sessionId === null) return;
    this.#pending = 'discard';
    this.#setError('discard', null);
    try {
      const result = await this.#api.discard(this.projectId, sessionId);
      if (result.ok) this.#applyResult = null;
      else this.#setError('discard', result.error);
    } finally {
      this.#pending = null;
    }
    await this.refresh();
  }

  /** End the session without changing the package; the next message starts a new one. */
  async cancel(): Promise<void> {
    const sessionId = this.#sessionId;
    if (!this.canEdit || sessionId === null || this.#pending !== null) return;
    this.#pending = 'cancel';
    this.#setError('cancel', null);
    try {
      const result = await this.#api.cancel(this.projectId, sessionId);
      if (!result.ok) this.#setError('cancel', result.error);
      else this.#detach();
    } finally {
      this.#pending = null;
    }
    if (this.#sessionId === null) await this.open();
  }

  /** Also hear every batch of new events (the review pane's mentions); returns the unsubscribe. */
  onEvents(listener: (fresh: SessionEvent[], replay: boolean) => void): () => void {
    this.#eventListeners.add(listener);
    return () => this.#eventListeners.delete(listener);
  }

  /** Tell the others which staged file you are looking at (null: none). */
  lookAt(key: string | null): void {
    this.feed.lookAt(key);
  }

  /** Read the stored view and the staged changes again. */
  refresh(): Promise<void> {
    return this.#refresh.run();
  }

  /** Close the socket and stop looking for sessions (the page is left). */
  dispose(): void {
    this.#disposed = true;
    this.#poll.clear();
    this.feed.close();
  }

  /** Back to the state before `open()` (tests, and a fresh start). */
  reset(): void {
    this.#detach();
    this.#phase = 'finding';
    this.#errors = {};
    this.#pending = null;
    this.#disposed = false;
  }

  // ------------------------------------------------------------------------------- internals

  async #attach(sessionId: string): Promise<void> {
    this.#poll.clear();
    this.#sessionId = sessionId;
    await this.#load();
    if (this.#disposed || this.#sessionId !== sessionId) return;
    this.#phase = this.#view ? 'ready' : 'failed';
    if (this.#view) this.feed.open(this.projectId, sessionId, (fresh, replay) => this.#onEvents(fresh, replay));
  }

  #detach(): void {
    this.#poll.clear();
    this.feed.close();
    this.#sessionId = null;
    this.#view = null;
    this.#changes = null;
    this.#awaiting = null;
    this.#applyResult = null;
    this.#lifecycle = NO_LIFECYCLE;
  }

  async #load(): Promise<void> {
    const sessionId = this.#sessionId;
    if (sessionId === null) return;
    const [state, changes] = await Promise.all([this.#api.state(this.projectId, sessionId), this.#api.changes(this.projectId, sessionId)]);
    if (this.#sessionId !== sessionId) return;
    if (state.ok) {
      this.#view = state.data;
      this.#setError('load', null);
      // Without the socket the awaited turn's events never come; the stored view says it ended.
      const turn = state.data.turn;
      if (turn && turn.turnId === this.#awaiting?.turnId && turn.status !== 'running' && turn.status !== 'paused') this.#awaiting = null;
    } else {
      this.#setError('load', state.error);
    }
    if (changes.ok) this.#changes = changes.data;
  }

  /** New events from the feed: settle a sent message, and re-read what they made stale. */
  #onEvents(fresh: SessionEvent[], replay: boolean): void {
    const awaiting = this.#awaiting;
    if (awaiting && this.feed.log.turns.some((t) => t.turnId === awaiting.turnId)) this.#awaiting = null;
    if (fresh.some((e) => e.type === 'change.staged')) this.#applyResult = null;
    this.#lifecycle = fresh.reduce((state, e) => foldLifecycle(state, e, this.target.targetType), this.#lifecycle);
    // A resume replay mostly repeats what the stored view already reflects.
    const known = replay ? (this.#view?.lastSeq ?? 0) : 0;
    if (fresh.some((e) => e.seq > known && REFRESH_ON.has(e.type))) void this.refresh();
    for (const listener of this.#eventListeners) listener(fresh, replay);
  }

  #setError(action: WorkbenchAction, error: ErrorBody | null): void {
    if (error) this.#errorOpens = this.feed.opens;
    const next = { ...this.#errors };
    if (error) next[action] = error;
    else delete next[action];
    this.#errors = next;
  }

  #schedulePoll(): void {
    this.#poll.clear();
    if (this.#disposed) return;
    this.#poll.schedule(() => {
      if (this.#phase === 'none' && this.#sessionId === null && this.#pending === null) void this.open();
    });
  }
}
