/**
 * The session's open sockets, kept in memory while the object is awake. partyserver's
 * `getConnections()` deserializes every socket's attachment each time it is walked (to tell its
 * own sockets from others), so a broadcast through it costs one structured-clone read per socket
 * per event; the roster walks the platform's list once per wake and is then kept by connect and
 * close. A socket that closed without telling us (the object slept through it) is dropped the next
 * time a broadcast meets it. The subscribed sockets (those that said hello and were not revoked)
 * are kept as a list too, so an event costs one send per socket and no per-socket check: the list
 * is made again only after a socket joins, leaves, subscribes or is revoked (`changed`).
 */
import type { SessionConnection } from './socket-state.ts';

export class Roster {
  readonly #scan: () => Iterable<SessionConnection>;
  /**
   * The sockets themselves, in the order they joined; null until the first use after a wake. Kept
   * by socket, not by connection id: two sockets with one id (the id is the object's to make, see
   * ai-session.ts `fetch`) must never hide one another from a broadcast or a revocation.
   */
  #sockets: Set<SessionConnection> | null = null;
  /** The subscribed open sockets; null when it must be made again. */
  #subscribers: SessionConnection[] | null = null;

  /** `scan`: the platform's list (partyserver's `getConnections()`), read once per wake. */
  constructor(scan: () => Iterable<SessionConnection>) {
    this.#scan = scan;
  }

  #all(): Set<SessionConnection> {
    this.#sockets ??= new Set(this.#scan());
    return this.#sockets;
  }

  /** A socket the object just accepted. */
  add(connection: SessionConnection): void {
    this.#all().add(connection);
    this.#subscribers = null;
  }

  /** A socket that closed or failed. */
  remove(connection: SessionConnection): void {
    this.#sockets?.delete(connection);
    this.#subscribers = null;
  }

  /** A socket subscribed or was revoked: the next broadcast makes the list again. */
  changed(): void {
    this.#subscribers = null;
  }

  /**
   * Send `text` to every subscribed socket. A socket that refuses (it closed under us) is dropped
   * rather than stopping the others, as `open` drops one it finds closed.
   */
  broadcast(text: string): void {
    this.#subscribers ??= [...this.open()].filter((c) => c.state?.subscribed && !c.state.revoked);
    for (const connection of this.#subscribers) {
      try {
        connection.send(text);
      } catch {
        this.remove(connection);
      }
    }
  }

  /** The open sockets, oldest first. */
  *open(): Generator<SessionConnection> {
    for (const connection of this.#all()) {
      if (connection.readyState === WebSocket.OPEN) yield connection;
      else if (connection.readyState === WebSocket.CLOSED) this.#sockets!.delete(connection);
    }
  }
}
