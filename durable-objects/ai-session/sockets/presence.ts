/**
 * The `presence` frame (PROTOCOL.md): who is connected, the file each looks at, and what the AI is
 * doing while a turn runs (ai-presence.ts derives it from the turn's events). The socket hub says
 * when it changed; this sends the list to every subscribed socket (one that said `hello`), at most
 * once per interval (shared/protocol-limits.ts PRESENCE_INTERVAL_MS): the first change in a quiet
 * session goes out at once, and whatever changes within the interval after it goes out at its end,
 * as the state is then (the last state always goes out). So a burst of N connects or file changes
 * costs N sends per interval, not N per change. A socket that subscribes gets the list at once.
 * An ended session has none: a socket whose person lost access after the end (the project channel
 * tells only active sessions) learns nothing live from it.
 */
import type { SessionEvent } from '../../../shared/ai/events.ts';
import type { AiPresence, PresenceEntry, ServerMessage } from '../../../shared/protocol.ts';
import { aiPresenceAfter } from './ai-presence.ts';
import type { SessionConnection, SocketState } from './socket-state.ts';

export interface PresenceDeps {
  connections(): Iterable<SessionConnection>;
  /** Whether the session is still active. */
  live(): boolean;
  workflowId(): string | null;
  /** The shortest time between two broadcasts (ms). */
  intervalMs(): number;
}

export class Presence {
  readonly #deps: PresenceDeps;
  /** What the AI is doing in the running turn; in memory, as a running turn keeps the object awake. */
  #ai: AiPresence | null = null;
  /** When the last broadcast went out, and the one due at the end of the interval (if any). */
  #sentAt = Number.NEGATIVE_INFINITY;
  #due: ReturnType<typeof setTimeout> | null = null;

  constructor(deps: PresenceDeps) {
    this.#deps = deps;
  }

  /** Someone joined, left or changed file, or the AI moved: everyone subscribed is told, now or at the end of the interval. */
  changed(): void {
    if (this.#due !== null) return;
    const wait = this.#sentAt + this.#deps.intervalMs() - Date.now();
    if (wait <= 0) return this.#broadcast();
    this.#due = setTimeout(() => {
      this.#due = null;
      this.#broadcast();
    }, wait);
  }

  /** The object released its storage: no broadcast is left due (it would read the session that is gone). */
  stop(): void {
    if (this.#due !== null) clearTimeout(this.#due);
    this.#due = null;
  }

  /** A socket that just subscribed: the list now, to it alone. */
  welcome(connection: SessionConnection): void {
    if (!this.#deps.live()) return;
    const { frame } = this.#list();
    if (connection.readyState === WebSocket.OPEN) connection.send(frame);
  }

  #broadcast(): void {
    this.#sentAt = Date.now();
    if (!this.#deps.live()) return;
    const { frame, open } = this.#list();
    for (const [connection, state] of open) if (state.subscribed) connection.send(frame);
  }

  /** Everyone connected (subscribed or not), as the frame and the sockets with their state. */
  #list(): { frame: string; open: Array<[SessionConnection, SocketState]> } {
    const open: Array<[SessionConnection, SocketState]> = [];
    for (const c of this.#deps.connections()) {
      const state = c.readyState === WebSocket.OPEN ? c.state : null;
      if (state && !state.revoked) open.push([c, state]);
    }
    const present: PresenceEntry[] = open.map(([c, s]) => ({ connectionId: c.id, userId: s.userId, name: s.name, role: s.role, file: s.file, since: s.since }));
    return { frame: JSON.stringify({ type: 'presence', present, ai: this.#ai } satisfies ServerMessage), open };
  }

  /** A stored event: when it moves the AI, everyone is told. Answers the AI's new presence, or undefined when it did not move. */
  noteEvent(event: SessionEvent): AiPresence | null | undefined {
    const next = aiPresenceAfter(event, this.#ai, this.#deps.workflowId());
    if (next === undefined || JSON.stringify(next) === JSON.stringify(this.#ai)) return undefined;
    this.#ai = next;
    this.changed();
    return next;
  }
}
