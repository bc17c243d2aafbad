/**
 * The `presence` frame (PROTOCOL.md): who is connected, the file each looks at, and what the AI is
 * doing while a turn runs (ai-presence.ts derives it from the turn's events). The socket hub says
 * when it changed; this sends the list to every open socket. An ended session has none: a socket
 * whose person lost access after the end (the project channel tells only active sessions) learns
 * nothing live from it.
 */
import type { SessionEvent } from '../../../shared/ai/events.ts';
import type { AiPresence, PresenceEntry, ServerMessage } from '../../../shared/protocol.ts';
import { aiPresenceAfter } from './ai-presence.ts';
import type { SessionConnection } from './socket-state.ts';

export interface PresenceDeps {
  connections(): Iterable<SessionConnection>;
  /** Whether the session is still active. */
  live(): boolean;
  workflowId(): string | null;
}

export class Presence {
  readonly #deps: PresenceDeps;
  /** What the AI is doing in the running turn; in memory, as a running turn keeps the object awake. */
  #ai: AiPresence | null = null;

  constructor(deps: PresenceDeps) {
    this.#deps = deps;
  }

  /** Send the list to every open socket. */
  broadcast(): void {
    if (!this.#deps.live()) return;
    const open = [...this.#deps.connections()].filter((c) => c.readyState === WebSocket.OPEN && c.state && !c.state.revoked);
    const present: PresenceEntry[] = open.map((c) => {
      const s = c.state!;
      return { connectionId: c.id, userId: s.userId, name: s.name, role: s.role, file: s.file, since: s.since };
    });
    const frame = JSON.stringify({ type: 'presence', present, ai: this.#ai } satisfies ServerMessage);
    for (const c of open) c.send(frame);
  }

  /** A stored event: when it moves the AI, everyone is told. Answers the AI's new presence, or undefined when it did not move. */
  noteEvent(event: SessionEvent): AiPresence | null | undefined {
    const next = aiPresenceAfter(event, this.#ai, this.#deps.workflowId());
    if (next === undefined || JSON.stringify(next) === JSON.stringify(this.#ai)) return undefined;
    this.#ai = next;
    this.broadcast();
    return next;
  }
}
