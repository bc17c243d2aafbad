/**
 * One Durable Object per AI session (addressed by `idFromName(sessionId)`), a thin class over
 * SessionCore (session.ts): it owns the hibernatable sockets (their protocol is sockets/socket-hub.ts and
 * PROTOCOL.md beside this file), the alarm, and the RPC surface the Worker's routes call after
 * they have checked the user's role, including the project channel's `projectMessage`.
 * Over 400 lines: the RPC surface is one pass-through per command of shared/ai/session-rpc.ts
 * (`#answer`: the session check, then the command; a release it overlapped answers "not found"),
 * and workerd instantiates this one class; the logic lives in SessionCore, sockets/ (people.ts:
 * who is asking) and loop/. What stays here is the object's own lifecycle: set-up,
 * the release after retention, and a deleted project.
 */
import { Server, type ConnectionContext, type WSMessage } from 'partyserver';
import { atLeast } from '../../shared/api/common.ts';
import type { NewEvent, SessionEvent } from '../../shared/ai/events.ts';
import type { SessionMeta } from '../../shared/ai/session.ts';
import type { ProjectChannelMessage } from '../../shared/ai/project-channel.ts';
import { CLOSE_CODES } from '../../shared/protocol.ts';
import { PING_FRAME, PONG_FRAME } from '../../shared/protocol-limits.ts';
import { createDb } from '../../worker/db/client.ts';
import { instrumentD1 } from '../../worker/db/instrumented-d1.ts';
import { resolveEffectiveProfile } from '../../worker/llm/effective-profile.ts';
import { profileMemoFor } from '../../worker/llm/profile-memo.ts';
import { createChatProvider } from '../../worker/llm/provider.ts';
import { pricesFromEnv } from '../../worker/llm/prices.ts';
import type { ResolveRebaseInput } from '../../shared/api/ai-rebase.ts';
import type { GraphUndoInput, MessageAccepted, MessageInput } from '../../shared/api/ai-sessions.ts';
import { TurnRunner } from './loop/turn-runner.ts';
import { AuditOutbox } from './loop/audit-outbox.ts';
import { turnOutcome, waitForTurnEnd } from './loop/turn-wait.ts';
import { ApiError } from '../../shared/api-error.ts';
import { fail, ok, outcomeOf, type Outcome } from '../../shared/ai/outcome.ts';
import { SessionCore } from './session.ts';
import { notFoundAnswer, outcomeUnlessReleased } from './released.ts';
import { settleBeforeDeletion } from './project-deleted.ts';
import { AlarmTasks } from './alarm-tasks.ts';
import type { Actor, AiSessionRpc, ApplyRequest, CommentRequest, CreateSessionOptions, MessagePreload } from '../../shared/ai/session-rpc.ts';
import { forgetKv, migrate, readKv, writeKv } from './storage.ts';
import { ENDING_EVENTS, archiveWhenDue, retentionMs } from './retention.ts';
import { logError } from '../../shared/errors-report.ts';
import { People } from './sockets/people.ts';
import { socketsPerPerson } from './sockets/admission.ts';
import { commentsPerMinute } from './review/comment-rate.ts';
import { REPLAY_PAGE_SIZE, liveFrame } from './events/replay.ts';
import { SocketHub } from './sockets/socket-hub.ts';
import { Roster } from './sockets/roster.ts';
import { EDIT_FLUSH_MS } from './overlay/overlay-doc.ts';
import { sendBinary, syncUpdateFrame, type SessionConnection, type SocketState } from './sockets/socket-state.ts';
import { runTool } from './tools/registry.ts';
import { addressCommentsTask } from './review/address-comments.ts';
import type { ToolEnvelope } from '../../shared/ai/tool-envelope.ts';
import type { CompareSide } from '../../shared/api/ai-versions.ts';
import type { KeepInput, UndoInput } from '../../shared/api/ai-undo.ts';

/**
 * While a turn runs, the watchdog alarm fires this often: it keeps the object awake, and after a
 * restart (eviction, deploy) it finds the turn without a runner and resumes it from its checkpoint.
 */
export const TURN_WATCHDOG_MS = 15_000;

/** Set in `kv` once the Worker told this session its project was deleted. */
const PROJECT_DELETED_KEY = 'projectDeleted';

export class AiSessionDurableObject extends Server<Cloudflare.Env> implements AiSessionRpc {
  static override options = { hibernate: true };

  #core: SessionCore | undefined;
  #turns: TurnRunner | undefined;
  #hub: SocketHub | undefined;
  #audit: AuditOutbox | undefined;
  #db: ReturnType<typeof createDb> | undefined;
  /** Who is asking, as the Worker and the project channel told (sockets/members.ts, sign-outs.ts, known-callers.ts). */
  #people: People | undefined;
  /** The open sockets in memory (sockets/roster.ts): a broadcast walks this, not the platform's list. */
  #roster = new Roster(() => this.getConnections<SocketState>());
  /** The deferred tasks and the platform alarm that runs them (alarm-tasks.ts). */
  #tasks = new AlarmTasks(this.ctx.storage, () => this.#core !== undefined);
  /** Set once this instance released the storage: the closes of its sockets must not re-create it. */
  #releasedNow = false;
  /** Events read per replay page (tests lower it to replay across pages with few events). */
  replayPageSize = REPLAY_PAGE_SIZE;
  /** How long relayed keystrokes wait before they are appended (tests hold them to count what a flush writes). */
  editFlushMs = EDIT_FLUSH_MS;
  /** The alarm's clock (tests move it past the retention period). */
  now: () => number = () => Date.now();

  get turns(): TurnRunner {
    if (!this.#turns) this.onStart();
    return this.#turns!;
  }

  /** The session, set up on first use from whichever entry point comes first (fetch, RPC, alarm). */
  get core(): SessionCore {
    if (!this.#core) this.onStart();
    return this.#core!;
  }

  get audit(): AuditOutbox {
    if (!this.#audit) this.onStart();
    return this.#audit!;
  }

  /** What the object knows of the people asking, set up with the session on first use. */
  get people(): People {
    if (!this.#people) this.onStart();
    return this.#people!;
  }

  get hub(): SocketHub {
    if (!this.#hub) this.onStart();
    return this.#hub!;
  }

  override onStart(): void {
    if (this.#core || this.#releasedNow) return;
    // The workbench's keep-alive (PROTOCOL.md "Keep-alive"): the platform answers the ping itself,
    // without waking the object or reaching the frame budgets, so a client finds out its socket died.
    this.ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING_FRAME, PONG_FRAME));
    const sql = this.ctx.storage.sql;
    migrate(sql);
    // Read here, with the schema, so a message (the first request of a woken object too) reads no task.
    this.#tasks.times();
    const db = createDb(instrumentD1(this.env.DB, this.env));
    this.#db = db;
    this.#core = new SessionCore({
      sql,
      db,
      emit: (event) => this.#emit(event),
      schedule: (name, dueAt) => this.#tasks.schedule(name, dueAt),
      commentsPerMinute: commentsPerMinute(this.env.AI_COMMENTS_PER_MINUTE),
    });
    this.#audit = new AuditOutbox({
      sql,
      db,
      scheduleFlush: (dueAt) => (dueAt === null ? this.#tasks.unschedule('audit') : this.#tasks.schedule('audit', dueAt)),
    });
    const profiles = profileMemoFor(this.env);
    this.#turns = new TurnRunner({
      core: this.#core,
      db,
      audit: this.#audit,
      emit: (event) => this.#emit(event),
      // A profile the Worker read with the cookie (sealed, or null: none saved) is used as sent; absent, D1 is asked.
      resolveProfile: (userId, sealed) => (sealed === undefined ? resolveEffectiveProfile(this.env, db, userId) : profiles.resolve(userId, sealed)),
      createProvider: (profile) => createChatProvider(profile),
      prices: () => pricesFromEnv(this.env),
      armWatchdog: () => this.#tasks.schedule('turn', Date.now() + TURN_WATCHDOG_MS),
      disarmWatchdog: () => this.#tasks.unschedule('turn'),
    });
    // A running turn in the storage of an instance that just started has no runner (the object
    // stopped): the alarm resumes or ends it now, even if it stopped before its watchdog was set;
    // audit rows left waiting are flushed by the same alarm.
    if (this.#core.turns.open()?.status === 'running' || this.#audit.pending() > 0) this.#tasks.schedule('turn', Date.now());
    const people = new People(sql, () => this.now());
    this.#people = people;
    this.#hub = new SocketHub({
      sessionId: () => this.name,
      core: this.#core,
      turns: this.#turns,
      members: people.members,
      signOuts: people.signOuts,
      connections: () => this.#roster.open(),
      subscribersChanged: () => this.#roster.changed(),
      replayPageSize: () => this.replayPageSize,
      socketsPerPerson: socketsPerPerson(this.env.AI_SOCKETS_PER_PERSON),
      pingedAt: (connection) => this.ctx.getWebSocketAutoResponseTimestamp(connection)?.getTime() ?? null,
      budgets: people.budgets,
    });
    this.#core.overlay.onUpdate((update, origin) => {
      // Encoded once for every socket.
      const frame = syncUpdateFrame(update);
      for (const connection of this.#roster.open()) {
        if (connection.id !== origin) sendBinary(connection, frame);
      }
    });
    // Keystrokes are relayed before they are written (overlay/overlay-doc.ts): append them a moment later, a burst in one commit.
    this.#core.overlay.onPending(() => {
      setTimeout(() => this.#core?.persistEdits(), this.editFlushMs);
    });
  }

  #emit(event: NewEvent): SessionEvent {
    // Keystrokes still waiting in memory are written first: storage keeps what was seen in the
    // order it was seen (a comment on a line someone just typed never outlives that line).
    if (this.core.overlay.pending > 0) this.core.persistEdits();
    // Events the session raises while the AI works (staged, validated…) belong to the running turn.
    const turnId = event.turnId ?? (event.actor.kind !== 'user' ? (this.#turns?.activeTurnId ?? null) : null);
    // Encoded once (the texts it stored), sent as the same string to every subscribed socket.
    const { event: stored, text } = this.core.log.appendText({ ...event, turnId });
    const frame = liveFrame(text);
    this.#roster.broadcast(frame);
    this.#hub?.noteEvent(stored);
    // The retention clock (retention.ts): checked again, against the last event, when it fires.
    if (ENDING_EVENTS.has(stored.type)) this.#tasks.schedule('release', Date.now() + this.#retentionMs());
    return stored;
  }

  // ---------------------------------------------------------------- alarm (deferred tasks: alarm-tasks.ts)

  /** Released (retention, a deleted project): an alarm already on its way does nothing, not even partyserver's set-up (released.ts). */
  override async alarm(): Promise<void> {
    if (!this.#released()) await super.alarm();
  }

  override async onAlarm(): Promise<void> {
    // The alarm that fired is spent; the last step below sets the next one.
    for (const name of this.#tasks.fired(this.now())) {
      this.#tasks.done(name);
      if (name === 'revalidate') await this.core.revalidate();
      // Released: the storage is gone, nothing else is left to do (or to re-create).
      if (name === 'release' && (await this.#release())) return;
    }
    // Any alarm flushes audit rows still waiting for D1 (written before a restart, or a failed flush's retry).
    if (this.audit.pending() > 0) await this.audit.flush();
    // Any alarm checks for a turn left without a runner (not only when the watchdog is due): an
    // object that restarted resumes its turn at the first alarm.
    await this.turns.watchdog();
    await this.#tasks.arm();
  }

  #retentionMs(): number {
    return retentionMs(this.env.AI_SESSION_RETENTION_DAYS);
  }

  /** The release task (retention.ts): once the ended session is archived to D1, its storage goes. True once released. */
  async #release(): Promise<boolean> {
    const archived = await archiveWhenDue({
      core: this.core,
      db: this.#db!,
      sql: this.ctx.storage.sql,
      audit: this.audit,
      retentionMs: this.#retentionMs(),
      now: () => this.now(),
      schedule: (dueAt) => this.#tasks.schedule('release', dueAt),
    });
    if (archived) await this.#dropStorage(CLOSE_CODES.SESSION_CLOSED, 'AI_SESSION_CLOSED');
    return archived;
  }

  /**
   * Close every socket, then delete the alarm and every row. From here on this instance touches no
   * table (#releasedNow: onStart makes none again, a late write of the turn finds none and fails) and
   * a later one finds no `kv` table (#released()): every entry point answers as if the session never existed.
   */
  async #dropStorage(closeCode: number, closeReason: string): Promise<void> {
    this.#releasedNow = true;
    this.#hub?.stop();
    for (const connection of this.getConnections<SocketState>()) connection.close(closeCode, closeReason);
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    forgetKv(this.ctx.storage.sql);
    this.#core = this.#turns = this.#hub = this.#audit = this.#people = undefined;
    this.#tasks.cleared();
  }

  /** True when the object has no storage: never created, released after its retention period, or its project deleted. */
  #released(): boolean {
    if (this.#releasedNow) return true;
    if (this.#core) return false;
    return this.ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'kv'").one().n === 0;
  }

  // ---------------------------------------------------------------- sockets (sockets/socket-hub.ts)

  /**
   * A socket's id is the object's to make. partyserver takes a `_pk` query parameter as the
   * connection id; one a client chose could copy another person's id (seen in presence frames) or
   * reuse its own, so it is dropped here, whatever the Worker forwarded.
   */
  override fetch(request: Request): Promise<Response> {
    if (this.#released()) return Promise.resolve(notFoundAnswer(request));
    const url = new URL(request.url);
    if (!url.searchParams.has('_pk')) return super.fetch(request);
    url.searchParams.delete('_pk');
    return super.fetch(new Request(url, request));
  }

  override onConnect(connection: SessionConnection, ctx: ConnectionContext): void {
    if (this.#releasedNow) return connection.close(CLOSE_CODES.NOT_FOUND, 'AI_SESSION_NOT_FOUND');
    try {
      const hub = this.hub;
      this.#roster.add(connection);
      hub.connect(connection, ctx.request.headers);
      // An accepted socket's login is one the Worker just checked: its owner's next message needs no D1 read.
      if (connection.state && !connection.state.revoked) this.people.rememberUpgrade(ctx.request.headers, connection.state);
    } catch (error) {
      // partyserver would send the error's stack to the client: the log gets it, the socket a code.
      logError('ai session: a socket could not be set up', error, { sessionId: this.name });
      connection.close(CLOSE_CODES.INTERNAL_ERROR, 'INTERNAL_ERROR');
    }
  }

  override onClose(connection: SessionConnection): void {
    if (this.#releasedNow) return;
    this.#roster.remove(connection);
    this.hub.farewell(connection);
  }

  override onError(connection: SessionConnection): void {
    if (this.#releasedNow) return;
    this.#roster.remove(connection);
    this.hub.farewell(connection);
  }

  override onMessage(connection: SessionConnection, message: WSMessage): void {
    if (this.#releasedNow) return;
    this.hub.message(connection, message);
  }

  /** The project channel (worker/live/project-channel.ts): a membership change, a sign-out, a baseline move. Answers once every socket was told. */
  async projectMessage(projectId: string, message: ProjectChannelMessage): Promise<{ sockets: number }> {
    if (this.#session(projectId)) return { sockets: 0 };
    if (message.type === 'baselineMoved') {
      this.core.baselineMoved();
      return { sockets: 0 };
    }
    if (message.type === 'projectDeleted') return { sockets: await this.#projectDeleted() };
    if (message.type === 'callerChanged') {
      this.people.told(message);
      return { sockets: 0 };
    }
    if (message.type === 'signedOut') this.people.told(message);
    return { sockets: this.hub.projectMessage(message) };
  }

  // ---------------------------------------------------------------- RPC (called by the Worker after its role check)

  async createSession(
    meta: SessionMeta,
    creatorName: string,
    userPrompt: string | null,
    options: CreateSessionOptions = {},
  ): Promise<Outcome<{ lastSeq: number }>> {
    return outcomeOf(async () => {
      if (meta.sessionId !== this.name) throw new Error('session id does not match the object');
      const fresh = !this.core.meta;
      try {
        await this.core.create(meta, creatorName, userPrompt, options.context);
      } catch (error) {
        // A refused target leaves no object behind: no tables, no kept baseline (#released() says not found).
        if (fresh) await this.#forget();
        throw error;
      }
      // Stored even when there is none (null), so the first message knows it without a read.
      if (fresh) this.core.turns.setTokenBudget(options.tokenBudget ?? null);
      const caller = options.caller;
      if (caller) {
        const creator: Actor = { userId: meta.createdBy, name: creatorName, role: caller.role, ...(caller.locale ? { locale: caller.locale } : {}) };
        this.people.remember(creator, caller, caller.senderProfile);
      }
      return { lastSeq: this.core.log.lastSeq() };
    });
  }

  async #forget(): Promise<void> {
    await this.ctx.storage.deleteAll();
    this.#core = this.#turns = this.#hub = this.#audit = this.#people = undefined;
    this.#tasks.forgotten();
  }

  #session(projectId: string): Outcome<never> | null {
    // A released object answers from nothing rather than re-creating empty tables.
    if (this.#released()) return fail('AI_SESSION_NOT_FOUND');
    const meta = this.core.meta;
    if (!meta || meta.projectId !== projectId) return fail('AI_SESSION_NOT_FOUND');
    return readKv<boolean>(this.ctx.storage.sql, PROJECT_DELETED_KEY) ? fail('AI_SESSION_NOT_FOUND') : null;
  }

  /** An RPC command: "not found" when #session says so, else its body's outcome, "not found" too if the storage went meanwhile (released.ts). */
  async #answer<T>(projectId: string, body: () => Promise<T> | T): Promise<Outcome<T>> {
    return this.#session(projectId) ?? outcomeUnlessReleased(body, () => this.#releasedNow);
  }

  /**
   * The project was deleted (D1 dropped this session's row with it): from now on the object answers
   * as if it never existed, its running turn stops (it would spend the sender's tokens for no one),
   * every socket closes and the storage is released: nothing of the session is kept, and no
   * retention clock would ever release it (the session never ends). Returns how many sockets were open.
   */
  async #projectDeleted(): Promise<number> {
    // Written first: a request that comes in while the turn stops is already answered "not found".
    writeKv(this.ctx.storage.sql, PROJECT_DELETED_KEY, true);
    await settleBeforeDeletion({ core: this.core, turns: this.turns, audit: this.audit, sessionId: this.name });
    const sockets = [...this.getConnections<SocketState>()].length;
    await this.#dropStorage(CLOSE_CODES.NOT_FOUND, 'AI_SESSION_NOT_FOUND');
    return sockets;
  }

  async getState(projectId: string, options: { messagesBefore?: number; messagesLimit?: number } = {}) {
    return this.#answer(projectId, () => this.core.state(options));
  }

  async getChanges(projectId: string) {
    return this.#answer(projectId, () => this.core.changes());
  }

  async stage(projectId: string, actor: Actor, changeSet: unknown) {
    return this.#answer(projectId, () => this.core.stage(changeSet, actor, 'api'));
  }

  async validate(projectId: string, changeSetId: string | undefined) {
    return this.#answer(projectId, () => this.core.validate(changeSetId));
  }

  async discard(projectId: string, actor: Actor) {
    return this.#answer(projectId, () => this.core.discard({ kind: 'user', userId: actor.userId, name: actor.name }));
  }

  async apply(projectId: string, actor: Actor, request: ApplyRequest) {
    return this.#answer(projectId, () => this.core.apply(actor, request));
  }

  async cancel(projectId: string, actor: Actor) {
    return this.#answer(projectId, async () => {
      // A running or paused turn is stopped first, in the canceller's name.
      if (atLeast(actor.role, 'editor') && this.core.turns.open()) await this.turns.stop(actor);
      return this.core.cancel(actor);
    });
  }

  /** POST …/messages: start a turn; answers once it is accepted (its progress follows as events). */
  async sendMessage(projectId: string, actor: Actor, input: MessageInput, preload: MessagePreload = {}) {
    const missing = this.#session(projectId);
    if (missing) return missing;
    if (preload.caller) this.people.remember(actor, preload.caller, preload.senderProfile);
    return outcomeUnlessReleased(() => this.turns.accept(actor, input, preload.senderProfile), () => this.#releasedNow);
  }

  /** POST …/messages with nothing read from D1: accepted only when this object can vouch for the login (known-callers.ts). */
  async sendKnownMessage(projectId: string, loginSession: string, input: MessageInput): Promise<Outcome<MessageAccepted | null>> {
    // Not this project's session: the Worker answers after its own check (an unknown caller learns nothing here).
    if (this.#session(projectId)) return ok(null);
    const sender = this.people.sender(loginSession);
    if (!sender) return ok(null);
    // Only an acceptance is answered from here: any refusal (a turn running, no AI profile…) comes
    // from the usual route after D1's check, as it always did (a refused accept wrote nothing).
    const accepted = await outcomeUnlessReleased(() => this.turns.accept(sender.actor, input, sender.senderProfile), () => this.#releasedNow);
    return accepted.ok ? accepted : ok(null);
  }

  /** POST …/address-comments: the open review threads, fenced as data, become the next turn's message. */
  async addressComments(projectId: string, actor: Actor) {
    return this.#answer(projectId, async () => {
      const task = await addressCommentsTask(this.core, actor);
      return { ...(await this.turns.accept(actor, { content: task.content })), threadIds: task.threadIds };
    });
  }

  /** POST …/messages?wait: resolves when the turn ends (its outcome) or after `timeoutMs` ({ended: false}). */
  async waitForTurn(projectId: string, turnId: string, timeoutMs: number) {
    return this.#answer(projectId, async () => {
      // The turn's end, not its run's: the audit rows it flushes afterwards are not waited for.
      const deps = { core: this.core, runOf: (id: string) => this.turns.endOf(id) };
      if (!(await waitForTurnEnd(deps, turnId, timeoutMs))) return { ended: false as const };
      return { ended: true as const, outcome: await turnOutcome(this.core, turnId) };
    });
  }

  async stopTurn(projectId: string, actor: Actor) {
    return this.#answer(projectId, () => this.turns.stop(actor));
  }

  async resumeTurn(projectId: string, actor: Actor) {
    return this.#answer(projectId, () => this.turns.resume(actor));
  }

  async setTokenBudget(projectId: string, tokenBudget: number | null) {
    return this.#answer(projectId, () => {
      // An ended session is read-only (PROTOCOL.md): no budget to change.
      if (this.core.status !== 'active') throw new ApiError('AI_SESSION_CLOSED');
      this.core.turns.setTokenBudget(tokenBudget);
      return { tokenBudget, sessionUsage: this.core.turns.sessionUsage() };
    });
  }

  async comment(projectId: string, actor: Actor, input: CommentRequest) {
    return this.#answer(projectId, () => this.core.comment(actor, input));
  }

  async setThreadStatus(projectId: string, actor: Actor, threadId: string, status: 'open' | 'resolved') {
    return this.#answer(projectId, () => this.core.setThreadStatus(actor, threadId, status));
  }

  async approve(projectId: string, actor: Actor, input: { changeSetId: string; contentHash: string }) {
    return this.#answer(projectId, () => this.core.approve(actor, input));
  }

  async withdrawApproval(projectId: string, actor: Actor) {
    return this.#answer(projectId, () => this.core.withdrawApproval(actor));
  }

  async requestChanges(projectId: string, actor: Actor, input: { changeSetId: string; contentHash: string; body: string }) {
    return this.#answer(projectId, () => this.core.requestChanges(actor, input));
  }

  async withdrawChangeRequest(projectId: string, actor: Actor) {
    return this.#answer(projectId, () => this.core.withdrawChangeRequest(actor));
  }

  async dismissChangeRequest(projectId: string, actor: Actor, requestId: string, reason: string) {
    return this.#answer(projectId, () => this.core.dismissChangeRequest(actor, requestId, reason));
  }

  async overrideApprovals(projectId: string, actor: Actor, input: { changeSetId: string; contentHash: string; reason: string }) {
    return this.#answer(projectId, () => this.core.overrideApprovals(actor, input));
  }

  async listVersions(projectId: string) {
    return this.#answer(projectId, () => this.core.versionsTimeline());
  }

  async compareVersions(projectId: string, from: CompareSide, to: CompareSide) {
    return this.#answer(projectId, () => this.core.compareVersions(from, to));
  }

  async restoreVersion(projectId: string, actor: Actor, version: number) {
    return this.#answer(projectId, () => this.core.restoreVersion(actor, version));
  }

  async rebase(projectId: string, actor: Actor) {
    return this.#answer(projectId, () => this.core.rebase(actor));
  }

  async resolveRebase(projectId: string, actor: Actor, input: ResolveRebaseInput) {
    return this.#answer(projectId, () => this.core.resolveRebase(actor, input));
  }

  async undoChange(projectId: string, actor: Actor, input: UndoInput) {
    return this.#answer(projectId, () => this.core.undo(actor, input));
  }

  async reapplyUndo(projectId: string, actor: Actor, undoId: string) {
    return this.#answer(projectId, () => this.core.reapplyUndo(actor, undoId));
  }

  async setKeepMark(projectId: string, actor: Actor, input: KeepInput) {
    return this.#answer(projectId, async () => this.core.setKeepMark(actor, input));
  }

  async keepMarks(projectId: string, actor: Actor) {
    return this.#answer(projectId, async () => this.core.keepMarks(actor));
  }

  async undoGraphPart(projectId: string, actor: Actor, input: GraphUndoInput) {
    return this.#answer(projectId, () => this.core.undoGraphPart(actor, input));
  }

  /** A `builder.*` tool as the model calls it (the loop calls runTool itself; tests call this). */
  async tool(projectId: string, actor: Actor, name: string, args: unknown): Promise<ToolEnvelope> {
    const missing = this.#session(projectId);
    if (missing) return { ok: false, data: null, error: { code: 'AI_SESSION_NOT_FOUND', message: missing.ok ? '' : missing.error.message }, meta: { revision: null } };
    return runTool(this.core, { actor, source: 'ai' }, name, args);
  }
}
