/**
 * One Durable Object per AI session (addressed by `idFromName(sessionId)`), a thin class over
 * SessionCore (session.ts): it owns the hibernatable sockets, the y-protocols framing, presence,
 * the alarm, and the RPC surface the Worker's routes call after they have checked the user's
 * role. The socket protocol is written down in PROTOCOL.md beside this file.
 */
import { Server, type Connection, type ConnectionContext, type WSMessage } from 'partyserver';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import { atLeast } from '../../shared/api/common.ts';
import type { NewEvent, SessionEvent } from '../../shared/ai/events.ts';
import type { SessionMeta } from '../../shared/ai/session.ts';
import {
  CLOSE_CODES,
  ClientMessage,
  IDENTITY_HEADERS,
  MAX_CLIENT_BINARY_FRAME_BYTES,
  MAX_CLIENT_TEXT_FRAME_BYTES,
  MAX_SERVER_FRAME_BYTES,
  PROTOCOL_VERSION,
  SocketIdentity,
  YJS_MESSAGE,
  type PresenceEntry,
  type ServerMessage,
} from '../../shared/protocol.ts';
import { createDb } from '../../worker/db/client.ts';
import { resolveEffectiveProfile } from '../../worker/llm/effective-profile.ts';
import { createChatProvider } from '../../worker/llm/provider.ts';
import type { MessageInput } from '../../shared/api/ai-sessions.ts';
import { TurnRunner } from './loop/turn-runner.ts';
import { turnOutcome, waitForTurnEnd } from './loop/turn-wait.ts';
import { ApiError } from '../../worker/http/api-error.ts';
import { fail, outcomeOf, type Outcome } from './outcome.ts';
import { SessionCore, type Actor, type ApplyRequest } from './session.ts';
import { migrate } from './storage.ts';
import { runTool } from './tools/registry.ts';
import type { ToolEnvelope } from '../../shared/ai/tool-envelope.ts';

/** Per-connection data, kept in the socket attachment so it survives hibernation. */
interface SocketState extends SocketIdentity {
  /** Set once the client has sent `hello {lastSeq}`; live events go only to subscribed sockets. */
  subscribed: boolean;
  file: string | null;
  since: string;
}

type SessionConnection = Connection<SocketState>;

function send(connection: SessionConnection, message: ServerMessage): void {
  if (connection.readyState === WebSocket.OPEN) connection.send(JSON.stringify(message));
}

function sendBinary(connection: SessionConnection, data: Uint8Array): void {
  if (connection.readyState === WebSocket.OPEN) connection.send(data);
}

function syncUpdateFrame(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, YJS_MESSAGE.SYNC);
  syncProtocol.writeUpdate(encoder, update);
  return encoding.toUint8Array(encoder);
}

/** Split a replay into frames below the server frame cap (at least one event per frame). */
function replayFrames(events: SessionEvent[]): SessionEvent[][] {
  const frames: SessionEvent[][] = [];
  let current: SessionEvent[] = [];
  let size = 0;
  for (const event of events) {
    const bytes = JSON.stringify(event).length + 1;
    if (current.length > 0 && size + bytes > MAX_SERVER_FRAME_BYTES - 256) {
      frames.push(current);
      current = [];
      size = 0;
    }
    current.push(event);
    size += bytes;
  }
  frames.push(current);
  return frames;
}

/**
 * While a turn runs, the watchdog alarm fires this often: it keeps the object awake, and after a
 * restart (eviction, deploy) it finds the turn without a runner and resumes it from its checkpoint.
 */
export const TURN_WATCHDOG_MS = 15_000;

export class AiSessionDurableObject extends Server<Cloudflare.Env> {
  static override options = { hibernate: true };

  #core: SessionCore | undefined;
  #turns: TurnRunner | undefined;

  get turns(): TurnRunner {
    if (!this.#turns) this.onStart();
    return this.#turns!;
  }

  /** The session, set up on first use from whichever entry point comes first (fetch, RPC, alarm). */
  get core(): SessionCore {
    if (!this.#core) this.onStart();
    return this.#core!;
  }

  override onStart(): void {
    if (this.#core) return;
    const sql = this.ctx.storage.sql;
    migrate(sql);
    this.#core = new SessionCore({
      sql,
      db: createDb(this.env.DB),
      emit: (event) => this.#emit(event),
      schedule: (name, dueAt) => this.#schedule(name, dueAt),
    });
    const db = createDb(this.env.DB);
    this.#turns = new TurnRunner({
      core: this.#core,
      db,
      emit: (event) => this.#emit(event),
      resolveProfile: (userId) => resolveEffectiveProfile(this.env, db, userId),
      createProvider: (profile) => createChatProvider(profile),
      armWatchdog: () => this.#schedule('turn', Date.now() + TURN_WATCHDOG_MS),
      disarmWatchdog: () => this.#unschedule('turn'),
    });
    this.#core.overlay.onUpdate((update, origin) => {
      const frame = syncUpdateFrame(update);
      for (const connection of this.getConnections<SocketState>()) {
        if (connection.id !== origin) sendBinary(connection, frame);
      }
    });
  }

  #emit(event: NewEvent): SessionEvent {
    // Events the session raises while the AI works (staged, validated…) belong to the running turn.
    const turnId = event.turnId ?? (event.actor.kind !== 'user' ? (this.#turns?.activeTurnId ?? null) : null);
    const stored = this.core.log.append({ ...event, turnId });
    const frame = JSON.stringify({ type: 'events', events: [stored], replay: false, done: true } satisfies ServerMessage);
    for (const connection of this.getConnections<SocketState>()) {
      if (connection.state?.subscribed && connection.readyState === WebSocket.OPEN) connection.send(frame);
    }
    return stored;
  }

  // ---------------------------------------------------------------- alarm (deferred tasks)

  #schedule(name: string, dueAt: number): void {
    const sql = this.ctx.storage.sql;
    sql.exec('INSERT INTO tasks (name, due_at) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET due_at = excluded.due_at', name, dueAt);
    void this.#armAlarm();
  }

  #unschedule(name: string): void {
    this.ctx.storage.sql.exec('DELETE FROM tasks WHERE name = ?', name);
    void this.#armAlarm();
  }

  async #armAlarm(): Promise<void> {
    const next = this.ctx.storage.sql.exec<{ due: number | null }>('SELECT MIN(due_at) AS due FROM tasks').one().due;
    if (next === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(next);
  }

  override async onAlarm(): Promise<void> {
    const sql = this.ctx.storage.sql;
    const due = sql.exec<{ name: string }>('SELECT name FROM tasks WHERE due_at <= ?', Date.now()).toArray();
    for (const { name } of due) {
      sql.exec('DELETE FROM tasks WHERE name = ?', name);
      if (name === 'revalidate') await this.core.revalidate();
    }
    // Any alarm checks for a turn left without a runner (not only when the watchdog is due): an
    // object that restarted resumes its turn at the first alarm.
    await this.turns.watchdog();
    await this.#armAlarm();
  }

  // ---------------------------------------------------------------- sockets

  override onConnect(connection: SessionConnection, ctx: ConnectionContext): void {
    const headers = ctx.request.headers;
    const identity = SocketIdentity.safeParse({
      userId: headers.get(IDENTITY_HEADERS.userId),
      name: headers.get(IDENTITY_HEADERS.name),
      role: headers.get(IDENTITY_HEADERS.role),
    });
    const meta = this.core.meta;
    if (!identity.success) {
      connection.close(CLOSE_CODES.UNAUTHORIZED, 'UNAUTHORIZED');
      return;
    }
    if (!meta || headers.get(IDENTITY_HEADERS.projectId) !== meta.projectId) {
      connection.close(CLOSE_CODES.NOT_FOUND, 'AI_SESSION_NOT_FOUND');
      return;
    }
    connection.setState({ ...identity.data, subscribed: false, file: null, since: new Date().toISOString() });
    send(connection, {
      type: 'hello',
      protocolVersion: PROTOCOL_VERSION,
      sessionId: this.name,
      you: identity.data,
      lastSeq: this.core.log.lastSeq(),
      status: this.core.status,
      canEdit: atLeast(identity.data.role, 'editor'),
    });
    // Yjs: ask for the client's state (sync step 1); it answers and asks for ours.
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, YJS_MESSAGE.SYNC);
    syncProtocol.writeSyncStep1(encoder, this.core.overlay.doc);
    sendBinary(connection, encoding.toUint8Array(encoder));
    this.#broadcastPresence();
  }

  override onClose(): void {
    this.#broadcastPresence();
  }

  override onError(): void {
    this.#broadcastPresence();
  }

  #broadcastPresence(): void {
    const present: PresenceEntry[] = [];
    const open = [...this.getConnections<SocketState>()].filter((c) => c.readyState === WebSocket.OPEN && c.state);
    for (const c of open) {
      const s = c.state!;
      present.push({ connectionId: c.id, userId: s.userId, name: s.name, role: s.role, file: s.file, since: s.since });
    }
    const frame = JSON.stringify({ type: 'presence', present } satisfies ServerMessage);
    for (const c of open) c.send(frame);
  }

  override onMessage(connection: SessionConnection, message: WSMessage): void {
    if (!connection.state) {
      connection.close(CLOSE_CODES.UNAUTHORIZED, 'UNAUTHORIZED');
      return;
    }
    if (typeof message === 'string') this.#onText(connection, message);
    else this.#onBinary(connection, message instanceof ArrayBuffer ? new Uint8Array(message) : new Uint8Array(message.buffer, message.byteOffset, message.byteLength));
  }

  #refuse(connection: SessionConnection, code: 'PROTOCOL_ERROR' | 'FRAME_TOO_LARGE' | 'YJS_MALFORMED', message: string): void {
    send(connection, { type: 'error', code, message });
    connection.close(code === 'FRAME_TOO_LARGE' ? CLOSE_CODES.FRAME_TOO_LARGE : CLOSE_CODES.PROTOCOL_ERROR, code);
  }

  #onText(connection: SessionConnection, text: string): void {
    if (text.length > MAX_CLIENT_TEXT_FRAME_BYTES) {
      this.#refuse(connection, 'FRAME_TOO_LARGE', `Text frames are limited to ${MAX_CLIENT_TEXT_FRAME_BYTES} bytes.`);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      send(connection, { type: 'error', code: 'INVALID_JSON', message: 'A text frame must be one JSON object.' });
      return;
    }
    const parsed = ClientMessage.safeParse(value);
    if (!parsed.success) {
      send(connection, { type: 'error', code: 'PROTOCOL_ERROR', message: 'Unknown or malformed frame.' });
      return;
    }
    const frame = parsed.data;
    switch (frame.type) {
      case 'hello': {
        // Replay exactly the events after lastSeq, then live events follow (no gap: this runs synchronously).
        const events = this.core.log.after(frame.lastSeq);
        const frames = replayFrames(events);
        frames.forEach((batch, i) => send(connection, { type: 'events', events: batch, replay: true, done: i === frames.length - 1 }));
        connection.setState({ ...connection.state!, subscribed: true });
        return;
      }
      case 'presence':
        connection.setState({ ...connection.state!, file: frame.file });
        this.#broadcastPresence();
        return;
      case 'stop': {
        const { userId, name, role } = connection.state!;
        this.turns.stop({ userId, name, role }).catch((error: unknown) => {
          const body = error instanceof ApiError ? error.toBody() : { code: 'INTERNAL_ERROR' as const, message: 'The AI could not be stopped.' };
          send(connection, { type: 'error', code: body.code, message: body.message, ...(body.hints ? { hints: body.hints } : {}) });
        });
        return;
      }
      default: {
        const never: never = frame;
        throw new Error(`unhandled frame ${String(never)}`);
      }
    }
  }

  #onBinary(connection: SessionConnection, data: Uint8Array): void {
    if (data.byteLength > MAX_CLIENT_BINARY_FRAME_BYTES) {
      this.#refuse(connection, 'FRAME_TOO_LARGE', `Binary frames are limited to ${MAX_CLIENT_BINARY_FRAME_BYTES} bytes.`);
      return;
    }
    const state = connection.state!;
    let kind: number;
    const decoder = decoding.createDecoder(data);
    try {
      kind = decoding.readVarUint(decoder);
    } catch {
      this.#refuse(connection, 'YJS_MALFORMED', 'The binary frame could not be read.');
      return;
    }
    if (kind === YJS_MESSAGE.AWARENESS) {
      // Cursors and selections: relayed as they are (the server's presence list is the trusted one).
      for (const other of this.getConnections<SocketState>()) if (other.id !== connection.id) sendBinary(other, data);
      return;
    }
    if (kind !== YJS_MESSAGE.SYNC) {
      this.#refuse(connection, 'PROTOCOL_ERROR', 'Unknown binary message kind.');
      return;
    }
    let syncType: number;
    let payload: Uint8Array;
    try {
      syncType = decoding.readVarUint(decoder);
      payload = decoding.readVarUint8Array(decoder);
    } catch {
      this.#refuse(connection, 'YJS_MALFORMED', 'The document message could not be read.');
      return;
    }
    if (syncType === syncProtocol.messageYjsSyncStep1) {
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, YJS_MESSAGE.SYNC);
      encoding.writeVarUint(encoder, syncProtocol.messageYjsSyncStep2);
      let diff: Uint8Array;
      try {
        diff = Y.encodeStateAsUpdate(this.core.overlay.doc, payload);
      } catch {
        this.#refuse(connection, 'YJS_MALFORMED', 'The document state vector could not be read.');
        return;
      }
      encoding.writeVarUint8Array(encoder, diff);
      sendBinary(connection, encoding.toUint8Array(encoder));
      return;
    }
    if (syncType !== syncProtocol.messageYjsSyncStep2 && syncType !== syncProtocol.messageYjsUpdate) {
      this.#refuse(connection, 'PROTOCOL_ERROR', 'Unknown document message type.');
      return;
    }
    const canEdit = atLeast(state.role, 'editor') && this.core.status === 'active';
    const result = this.core.overlay.applyClientUpdate(payload, connection.id, !canEdit);
    if (!result.ok) {
      if (result.code === 'YJS_MALFORMED') {
        this.#refuse(connection, 'YJS_MALFORMED', result.message);
      } else {
        send(connection, { type: 'error', code: result.code, message: result.message });
      }
      return;
    }
    if (result.changed) this.core.noteEdit(state);
  }

  // ---------------------------------------------------------------- RPC (called by the Worker after its role check)

  async createSession(
    meta: SessionMeta,
    creatorName: string,
    userPrompt: string | null,
    options: { tokenBudget?: number | null } = {},
  ): Promise<Outcome<{ lastSeq: number }>> {
    return outcomeOf(() => {
      if (meta.sessionId !== this.name) throw new Error('session id does not match the object');
      const fresh = !this.core.meta;
      this.core.setCreatorName(creatorName);
      this.core.init(meta, userPrompt);
      if (fresh && options.tokenBudget != null) this.core.turns.setTokenBudget(options.tokenBudget);
      return { lastSeq: this.core.log.lastSeq() };
    });
  }

  #session(projectId: string): Outcome<never> | null {
    const meta = this.core.meta;
    return !meta || meta.projectId !== projectId ? fail('AI_SESSION_NOT_FOUND') : null;
  }

  async getState(projectId: string, options: { messagesBefore?: number; messagesLimit?: number } = {}) {
    return this.#session(projectId) ?? outcomeOf(() => this.core.state(options));
  }

  async getChanges(projectId: string) {
    return this.#session(projectId) ?? outcomeOf(() => this.core.changes());
  }

  async stage(projectId: string, actor: Actor, changeSet: unknown) {
    return this.#session(projectId) ?? outcomeOf(() => this.core.stage(changeSet, actor, 'api'));
  }

  async validate(projectId: string, changeSetId: string | undefined) {
    return this.#session(projectId) ?? outcomeOf(() => this.core.validate(changeSetId));
  }

  async discard(projectId: string, actor: Actor) {
    return this.#session(projectId) ?? outcomeOf(() => this.core.discard({ kind: 'user', userId: actor.userId, name: actor.name }));
  }

  async apply(projectId: string, actor: Actor, request: ApplyRequest) {
    return this.#session(projectId) ?? outcomeOf(() => this.core.apply(actor, request));
  }

  async cancel(projectId: string, actor: Actor) {
    return (
      this.#session(projectId) ??
      outcomeOf(async () => {
        // A running or paused turn is stopped first, in the canceller's name.
        if (atLeast(actor.role, 'editor') && this.core.turns.open()) await this.turns.stop(actor);
        return this.core.cancel(actor);
      })
    );
  }

  /** POST …/messages: start a turn; answers once it is accepted (its progress follows as events). */
  async sendMessage(projectId: string, actor: Actor, input: MessageInput) {
    return this.#session(projectId) ?? outcomeOf(() => this.turns.accept(actor, input));
  }

  /** POST …/messages?wait: resolves when the turn ends (its outcome) or after `timeoutMs` ({ended: false}). */
  async waitForTurn(projectId: string, turnId: string, timeoutMs: number) {
    return (
      this.#session(projectId) ??
      outcomeOf(async () => {
        const deps = { core: this.core, runOf: (id: string) => this.turns.runOf(id) };
        if (!(await waitForTurnEnd(deps, turnId, timeoutMs))) return { ended: false as const };
        return { ended: true as const, outcome: await turnOutcome(this.core, turnId) };
      })
    );
  }

  async stopTurn(projectId: string, actor: Actor) {
    return this.#session(projectId) ?? outcomeOf(() => this.turns.stop(actor));
  }

  async resumeTurn(projectId: string, actor: Actor) {
    return this.#session(projectId) ?? outcomeOf(() => this.turns.resume(actor));
  }

  async setTokenBudget(projectId: string, tokenBudget: number | null) {
    return (
      this.#session(projectId) ??
      outcomeOf(() => {
        this.core.turns.setTokenBudget(tokenBudget);
        return { tokenBudget, sessionUsage: this.core.turns.sessionUsage() };
      })
    );
  }

  async comment(projectId: string, actor: Actor, input: { objectKey: string; line: number | null; body: string; threadId?: string }) {
    return this.#session(projectId) ?? outcomeOf(() => this.core.comment(actor, input));
  }

  async setThreadStatus(projectId: string, actor: Actor, threadId: string, status: 'open' | 'resolved') {
    return this.#session(projectId) ?? outcomeOf(() => this.core.setThreadStatus(actor, threadId, status));
  }

  async approve(projectId: string, actor: Actor, input: { changeSetId: string; contentHash: string }) {
    return this.#session(projectId) ?? outcomeOf(() => this.core.approve(actor, input));
  }

  async withdrawApproval(projectId: string, actor: Actor) {
    return this.#session(projectId) ?? outcomeOf(() => this.core.withdrawApproval(actor));
  }

  /** A `builder.*` tool as the model calls it (the loop calls runTool itself; tests call this). */
  async tool(projectId: string, actor: Actor, name: string, args: unknown): Promise<ToolEnvelope> {
    const missing = this.#session(projectId);
    if (missing) return { ok: false, data: null, error: { code: 'AI_SESSION_NOT_FOUND', message: missing.ok ? '' : missing.error.message }, meta: { revision: null } };
    return runTool(this.core, { actor, source: 'ai' }, name, args);
  }
}
