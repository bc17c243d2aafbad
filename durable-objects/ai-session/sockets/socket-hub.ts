/**
 * The session's sockets (PROTOCOL.md): the hello and the resume replay, text frames, Yjs sync and
 * awareness, presence, and what the project channel tells about people (a role change, a removal,
 * a sign-out). Every frame that changes something is checked against the role the object was told
 * last (members.ts), not the role read at connect, and spends the socket's budget for its kind
 * (frame-rates.ts). A session no longer active is read-only for every socket: its hello is answered
 * (the replay), everything else is refused with AI_SESSION_CLOSED, and it has no presence
 * (PROTOCOL.md "Ended sessions"). The Durable Object class hands its socket callbacks here.
 */
import type { WSMessage } from 'partyserver';
import * as decoding from 'lib0/decoding';
import * as syncProtocol from 'y-protocols/sync';
import { atLeast, type Role } from '../../../shared/api/common.ts';
import type { MembershipChanged, SignedOut, SocketChannelMessage } from '../../../shared/ai/project-channel.ts';
import { ERROR_CODES } from '../../../shared/errors.ts';
import { CLOSE_CODES, ClientMessage, MAX_CLIENT_BINARY_FRAME_BYTES, MAX_SOCKETS_PER_PERSON, MAX_CLIENT_TEXT_FRAME_BYTES, PROTOCOL_VERSION, YJS_MESSAGE, utf8Bytes, type CloseCode, type FrameKind } from '../../../shared/protocol.ts';
import type { SessionEvent } from '../../../shared/ai/events.ts';
import { Presence } from './presence.ts';
import { AiAwareness } from './ai-awareness.ts';
import { awarenessRemovalFrame, checkAwareness } from './awareness.ts';
import { FrameRates } from './frame-rates.ts';
import type { BudgetStore } from './person-budgets.ts';
import { admit, defaultSocketLimits, type AdmissionDeps } from './admission.ts';
import type { TurnRunner } from '../loop/turn-runner.ts';
import type { Members } from './members.ts';
import type { SignOuts } from './sign-outs.ts';
import { replayFrames } from '../events/replay.ts';
import type { SessionCore } from '../session.ts';
import { coEditing, send, sendBinary, sendText, syncStep1Frame, syncStep2Frame, type SessionConnection, type SocketState } from './socket-state.ts';
import { commentFromSocket, stopFromSocket } from './socket-requests.ts';

export interface SocketHubDeps {
  sessionId(): string;
  core: SessionCore;
  turns: TurnRunner;
  members: Members;
  signOuts: SignOuts;
  connections(): Iterable<SessionConnection>;
  /** A socket subscribed or was revoked: the list live events go to must be made again (roster.ts). */
  subscribersChanged(): void;
  replayPageSize(): number;
  /** Sockets one person may open (`AI_SOCKETS_PER_PERSON`; default MAX_SOCKETS_PER_PERSON). */
  socketsPerPerson?: number;
  /** When the platform last answered the socket's keep-alive ping (ms), null if never. */
  pingedAt?(connection: SessionConnection): number | null;
  /** Where the person frame budgets outlive hibernation (person-budgets.ts); none: memory only. */
  budgets?: BudgetStore;
}

export class SocketHub {
  readonly #deps: SocketHubDeps;
  /** The caps on open sockets and the presence interval (admission.ts); a test may lower them. */
  readonly limits = defaultSocketLimits();
  /** What a connect is checked against (admission.ts). */
  readonly #admission: AdmissionDeps;
  /** Each socket's (and each person's) budget per kind of frame (frame-rates.ts). */
  readonly #rates: FrameRates;
  /** Who is here and what the AI is doing (presence.ts). */
  readonly #presence: Presence;
  /** The AI's cursor in the co-editor while a turn runs (ai-awareness.ts). */
  readonly #aiAwareness: AiAwareness;
  /** Set once the object released its storage (stop()); a socket request still waiting then answers "not found" (socket-requests.ts). */
  #stopped = false;

  constructor(deps: SocketHubDeps) {
    this.#deps = deps;
    if (deps.socketsPerPerson) this.limits.perPerson = deps.socketsPerPerson;
    this.#rates = new FrameRates(this.limits.perPerson / MAX_SOCKETS_PER_PERSON, deps.budgets ?? null);
    const { members, signOuts } = deps;
    const heardAt = (c: SessionConnection) => Math.max(this.#rates.heardAt(c.id) ?? 0, c.state?.heardAt ?? 0, deps.pingedAt?.(c) ?? 0) || null;
    const replace = (c: SessionConnection) => this.#revoke(c, 'SOCKET_REPLACED');
    this.#admission = { projectId: () => deps.core.meta?.projectId ?? null, members, signOuts, connections: () => deps.connections(), limits: this.limits, heardAt, replace };
    this.#presence = new Presence({
      connections: () => deps.connections(),
      live: () => this.#live,
      workflowId: () => deps.core.meta?.workflowId ?? null,
      intervalMs: () => this.limits.presenceIntervalMs,
    });
    this.#aiAwareness = new AiAwareness(deps.core.overlay.doc, 'ai', (frame) => {
      for (const c of deps.connections()) if (coEditing(c)) sendBinary(c, frame);
    });
  }

  get #core(): SessionCore {
    return this.#deps.core;
  }

  get #turns(): TurnRunner {
    return this.#deps.turns;
  }

  /** A socket the Worker upgraded, with the identity headers it set: admitted (admission.ts) or closed. */
  connect(connection: SessionConnection, headers: Headers): void {
    const admitted = admit(connection, headers, this.#admission);
    if (!admitted) return;
    const { you, loginSession, readAt } = admitted;
    connection.setState({
      ...you,
      subscribed: false,
      file: null,
      since: new Date().toISOString(),
      loginSession,
      readAt,
      revoked: false,
      awarenessClientId: null,
      awarenessClock: 0,
    });
    send(connection, {
      type: 'hello',
      protocolVersion: PROTOCOL_VERSION,
      sessionId: this.#deps.sessionId(),
      you,
      lastSeq: this.#core.log.lastSeq(),
      status: this.#core.status,
      canEdit: atLeast(you.role, 'editor'),
    });
    // Yjs: ask for the client's state (sync step 1); it answers and asks for ours (the AI's cursor comes once it co-edits).
    sendBinary(connection, syncStep1Frame(this.#core.overlay.doc));
    this.#presence.changed();
  }

  /** The object released its storage: a presence list still due is not sent, a request still waiting answers "not found". */
  stop(): void {
    this.#stopped = true;
    this.#presence.stop();
  }

  /** A socket is gone (or going): its cursor disappears for the others, and the presence list updates. */
  farewell(connection: SessionConnection): void {
    const state = connection.state;
    this.#rates.forget(connection.id, state?.userId ?? null);
    // Refused at its connect: it never joined, so nobody is told it left.
    if (!state) return;
    if (state.awarenessClientId != null) {
      const frame = awarenessRemovalFrame(state.awarenessClientId, state.awarenessClock);
      connection.setState({ ...state, awarenessClientId: null });
      for (const other of this.#deps.connections()) if (other.id !== connection.id && coEditing(other)) sendBinary(other, frame);
    }
    this.#presence.changed();
  }

  /** A stored event: when it moves the AI (a tool started, the turn ended), everyone is told. */
  noteEvent(event: SessionEvent): void {
    const next = this.#presence.noteEvent(event);
    if (next !== undefined) this.#aiAwareness.follow(next);
  }

  /** Whether the session still takes changes; once not, every socket is read-only. */
  get #live(): boolean {
    return this.#core.status === 'active';
  }

  /** A frame that would change something on an ended session: refused, the socket stays open. */
  #ended(connection: SessionConnection): void {
    send(connection, { type: 'error', code: 'AI_SESSION_CLOSED', message: ERROR_CODES.AI_SESSION_CLOSED.message });
  }

  /** The role a frame is checked against: what the Worker last told this object, not the role at connect. */
  #roleNow(state: SocketState): Role | null {
    if (state.revoked) return null;
    const known = this.#deps.members.roleOf(state.userId);
    return known === undefined ? state.role : known;
  }

  /** Close a socket whose person lost access, or one a newer socket of theirs replaced (admission.ts), telling them why first. */
  #revoke(connection: SessionConnection, code: 'MEMBERSHIP_REVOKED' | 'SIGNED_OUT' | 'SOCKET_REPLACED'): void {
    const state = connection.state;
    if (!state || state.revoked) return;
    connection.setState({ ...state, revoked: true });
    this.#deps.subscribersChanged();
    send(connection, { type: 'error', code, message: ERROR_CODES[code].message });
    connection.close(code === 'SOCKET_REPLACED' ? CLOSE_CODES.TOO_MANY_SOCKETS : CLOSE_CODES[code], code);
    this.farewell(connection);
  }

  message(connection: SessionConnection, message: WSMessage): void {
    const state = connection.state;
    if (!state) {
      connection.close(CLOSE_CODES.UNAUTHORIZED, 'UNAUTHORIZED');
      return;
    }
    if (state.revoked) return;
    if (this.#deps.signOuts.ended(state.userId, state.loginSession, state.readAt ?? 0)) {
      this.#revoke(connection, 'SIGNED_OUT');
      return;
    }
    const role = this.#roleNow(state);
    if (role === null) {
      this.#revoke(connection, 'MEMBERSHIP_REVOKED');
      return;
    }
    if (Date.now() - (state.heardAt ?? Date.parse(state.since)) >= this.limits.heardStepMs) connection.setState({ ...state, heardAt: Date.now() }); // kept for admission.ts, in steps
    if (typeof message === 'string') this.#onText(connection, role, message);
    else this.#onBinary(connection, role, message instanceof ArrayBuffer ? new Uint8Array(message) : new Uint8Array(message.buffer, message.byteOffset, message.byteLength));
  }

  /** Spend one frame of `kind` from this socket's budget, and its person's for hello and step 1 (frame-rates.ts); a spent budget closes it (4429). */
  #within(connection: SessionConnection, kind: FrameKind): boolean {
    const refused = this.#rates.take(connection.id, connection.state!.userId, kind);
    if (refused === null) return true;
    this.#refuse(connection, 'RATE_LIMITED', refused);
    return false;
  }

  #refuse(connection: SessionConnection, code: 'PROTOCOL_ERROR' | 'FRAME_TOO_LARGE' | 'YJS_MALFORMED' | 'RATE_LIMITED' | 'AWARENESS_REFUSED', message: string): void {
    send(connection, { type: 'error', code, message });
    const closeCode: CloseCode =
      code === 'FRAME_TOO_LARGE' ? CLOSE_CODES.FRAME_TOO_LARGE : code === 'RATE_LIMITED' || code === 'AWARENESS_REFUSED' ? CLOSE_CODES.RATE_LIMITED : CLOSE_CODES.PROTOCOL_ERROR;
    connection.close(closeCode, code);
  }

  #onText(connection: SessionConnection, role: Role, text: string): void {
    // The cap is in bytes: a non-ASCII character is up to 3 bytes but 1 in `text.length`.
    if (text.length > MAX_CLIENT_TEXT_FRAME_BYTES || utf8Bytes(text) > MAX_CLIENT_TEXT_FRAME_BYTES) {
      this.#refuse(connection, 'FRAME_TOO_LARGE', `Text frames are limited to ${MAX_CLIENT_TEXT_FRAME_BYTES} bytes.`);
      return;
    }
    let value: unknown = undefined;
    try {
      value = JSON.parse(text);
    } catch {
      // Answered below, once the frame is counted.
    }
    const parsed = value === undefined ? null : ClientMessage.safeParse(value);
    const type = parsed?.success ? parsed.data.type : null;
    // A comment is held to its sender's comment rate instead (review/comment-rate.ts: AI_COMMENTS_PER_MINUTE,
    // answered RATE_LIMITED without closing), which an operator may raise; a frame budget would cap it below that.
    if (type !== 'comment' && !this.#within(connection, type === 'hello' || type === 'presence' ? type : 'other')) return;
    if (!parsed) {
      send(connection, { type: 'error', code: 'INVALID_JSON', message: 'A text frame must be one JSON object.' });
      return;
    }
    if (!parsed.success) {
      send(connection, { type: 'error', code: 'PROTOCOL_ERROR', message: 'Unknown or malformed frame.' });
      return;
    }
    const frame = parsed.data;
    switch (frame.type) {
      case 'hello': {
        // Replay every event after lastSeq, page by page, then live events follow (no gap: this runs synchronously).
        for (const batch of replayFrames(this.#core.log, frame.lastSeq, { pageSize: this.#deps.replayPageSize() })) sendText(connection, batch);
        connection.setState({ ...connection.state!, subscribed: true });
        this.#deps.subscribersChanged();
        this.#presence.welcome(connection);
        return;
      }
      case 'presence':
        if (!this.#live) return this.#ended(connection);
        // The same file again changes nothing: nobody is told (a flood of them costs no broadcast).
        if (frame.file === connection.state!.file) return;
        connection.setState({ ...connection.state!, file: frame.file });
        this.#presence.changed();
        return;
      case 'stop': {
        const { userId, name } = connection.state!;
        if (!atLeast(role, 'editor') && userId !== this.#core.meta?.createdBy) {
          send(connection, { type: 'error', code: 'FORBIDDEN', message: 'Only editors and the person who started this session can stop the AI.' });
          return;
        }
        stopFromSocket(this.#turns, connection, { userId, name, role }, () => this.#stopped, this.#deps.sessionId());
        return;
      }
      case 'comment':
        commentFromSocket(this.#core, connection, role, frame, () => this.#stopped);
        return;
      default: {
        const never: never = frame;
        throw new Error(`unhandled frame ${String(never)}`);
      }
    }
  }

  #onBinary(connection: SessionConnection, role: Role, data: Uint8Array): void {
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
      this.#onAwareness(connection, decoder, data);
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
    if (!this.#within(connection, syncType === syncProtocol.messageYjsSyncStep1 ? 'syncStep1' : 'update')) return;
    if (syncType === syncProtocol.messageYjsSyncStep1) {
      const answer = syncStep2Frame(this.#core.overlay.doc, payload);
      if (answer) sendBinary(connection, answer);
      else this.#refuse(connection, 'YJS_MALFORMED', 'The document state vector could not be read.');
      return;
    }
    if (syncType !== syncProtocol.messageYjsSyncStep2 && syncType !== syncProtocol.messageYjsUpdate) {
      this.#refuse(connection, 'PROTOCOL_ERROR', 'Unknown document message type.');
      return;
    }
    const canEdit = atLeast(role, 'editor') && this.#live;
    const result = this.#core.overlay.applyClientUpdate(payload, connection.id, !canEdit);
    if (!result.ok) {
      if (result.code === 'YJS_MALFORMED') {
        this.#refuse(connection, 'YJS_MALFORMED', result.message);
      } else if (result.code === 'YJS_FORBIDDEN_CHANGE' && !this.#live) {
        this.#ended(connection);
      } else {
        send(connection, { type: 'error', code: result.code, message: result.message });
      }
      return;
    }
    if (result.changed) this.#core.noteEdit({ userId: state.userId, name: state.name });
  }

  /**
   * Cursors: checked (rate, shape, size, own client id), then relayed only to the other co-editors
   * (socket-state.ts `coEditing`; presence tells everyone who is here). A socket that starts sharing
   * gets the AI's cursor; one whose client removed itself (its editor closed) stops being a co-editor.
   */
  #onAwareness(connection: SessionConnection, decoder: decoding.Decoder, data: Uint8Array): void {
    if (!this.#within(connection, 'awareness')) return;
    // Nobody co-edits an ended session: no cursor is relayed.
    if (!this.#live) return this.#ended(connection);
    const state = connection.state!;
    const others = [...this.#deps.connections()].filter((c) => c.id !== connection.id);
    const check = checkAwareness(decoder, state.awarenessClientId, (id) => others.some((c) => c.state?.awarenessClientId === id), state.name);
    if (!check.ok) {
      if (check.close) this.#refuse(connection, check.code, check.message);
      else send(connection, { type: 'error', code: check.code, message: check.message });
      return;
    }
    const joined = state.awarenessClientId === null && !check.gone;
    connection.setState({ ...state, awarenessClientId: check.gone ? null : check.clientId, awarenessClock: check.gone ? 0 : Math.max(state.awarenessClock, check.clock) });
    for (const other of others) if (coEditing(other)) sendBinary(other, data);
    const ai = joined ? this.#aiAwareness.current() : null;
    if (ai) sendBinary(connection, ai);
  }

  /** A message of the project channel, for a session of that project: how many sockets it reached. */
  projectMessage(message: SocketChannelMessage): number {
    switch (message.type) {
      case 'membershipChanged':
        return this.#membershipChanged(message);
      case 'signedOut':
        return this.#signedOut(message);
      default: {
        const never: never = message;
        throw new Error(`unhandled project message ${String(never)}`);
      }
    }
  }

  #socketsOf(userId: string): SessionConnection[] {
    return [...this.#deps.connections()].filter((c) => c.state && !c.state.revoked && c.state.userId === userId);
  }

  #membershipChanged(message: MembershipChanged): number {
    const role = this.#deps.members.change(message.userId, message.role, message.at);
    const sockets = this.#socketsOf(message.userId);
    for (const connection of sockets) {
      const state = connection.state!;
      if (role === null) {
        this.#revoke(connection, 'MEMBERSHIP_REVOKED');
      } else if (role !== state.role) {
        connection.setState({ ...state, role });
        const canEdit = atLeast(role, 'editor');
        const reason = canEdit
          ? `An owner made you ${role === 'owner' ? 'an owner' : 'an editor'} of this project: you can edit the staged changes.`
          : 'An owner made you a viewer of this project: you can watch, but your edits are no longer accepted.';
        send(connection, { type: 'role', role, canEdit, reason });
      }
    }
    if (sockets.length > 0) this.#presence.changed();
    return sockets.length;
  }

  #signedOut(message: SignedOut): number {
    this.#deps.signOuts.record(message);
    const sockets = this.#socketsOf(message.userId).filter((c) => message.loginSessionId === null || c.state!.loginSession === message.loginSessionId);
    for (const connection of sockets) this.#revoke(connection, 'SIGNED_OUT');
    return sockets.length;
  }
}
