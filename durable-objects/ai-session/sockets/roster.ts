/**
 * The session's open sockets, kept in memory while the object is awake. partyserver's
 * `getConnections()` deserializes every socket's attachment each time it is walked (to tell its
 * own sockets from others), so a broadcast through it costs one structured-clone read per socket
 * per event; the roster walks the platform's list once per wake and is then kept by connect and
 * close. A socket that closed without telling us (the object slept through it) is dropped the next
 * time a broadcast meets it.
 */
import type { SessionConnection } from './socket-state.ts';

export class Roster {
  readonly #scan: () => Iterable<SessionConnection>;
  /** By connection id, in the order they joined; null until the first use after a wake. */
  #sockets: Map<string, SessionConnection> | null = null;

  /** `scan`: the platform's list (partyserver's `getConnections()`), read once per wake. */
  constructor(scan: () => Iterable<SessionConnection>) {
    this.#scan = scan;
  }

  #all(): Map<string, SessionConnection> {
    if (this.#sockets === null) {
      this.#sockets = new Map();
      for (const connection of this.#scan()) this.#sockets.set(connection.id, connection);
    }
    return this.#sockets;
  }

  /** A socket the object just accepted. */
  add(connection: SessionConnection): void {
    this.#all().set(connection.id, connection);
  }

  /** A socket that closed or failed. */
  remove(connection: SessionConnection): void {
    this.#sockets?.delete(connection.id);
  }

  /** The open sockets, oldest first. */
  *open(): Generator<SessionConnection> {
    for (const [id, connection] of this.#all()) {
      if (connection.readyState === WebSocket.OPEN) yield connection;
      else if (connection.readyState === WebSocket.CLOSED) this.#sockets!.delete(id);
    }
  }
}
