/**
 * The model's own time in bench/turn.ts, seen from the scripted server in the bench's process.
 */
import diagnostics from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Every chat completion request the scripted server answers, from the request's last byte to the
 * response's end, through node:http's diagnostics channels (the server is in this process, so no
 * wrapper changes what it does). A turn's model time is the sum over the requests inside it.
 */
export class ModelClock {
  readonly #port: number;
  readonly #open = new WeakMap<ServerResponse, number>();
  readonly #spans: Array<{ start: number; end: number }> = [];
  readonly #onStart = (message: unknown) => {
    const { request, response, socket } = message as { request: IncomingMessage; response: ServerResponse; socket: Socket };
    if (socket.localPort !== this.#port || request.method !== 'POST' || !request.url?.startsWith('/v1/chat/completions')) return;
    // From the request's last byte: sending the request is the client's work, not the model's.
    request.once('end', () => this.#open.set(response, performance.now()));
  };
  readonly #onFinish = (message: unknown) => {
    const { response } = message as { response: ServerResponse };
    const start = this.#open.get(response);
    if (start !== undefined) this.#spans.push({ start, end: performance.now() });
  };

  constructor(port: number) {
    this.#port = port;
    diagnostics.subscribe('http.server.request.start', this.#onStart);
    diagnostics.subscribe('http.server.response.finish', this.#onFinish);
  }

  /** The requests that started at or after `from` and ended by `to`: how many, and their summed time. */
  between(from: number, to: number): { count: number; ms: number } {
    const inside = this.#spans.filter((s) => s.start >= from && s.end <= to);
    return { count: inside.length, ms: inside.reduce((sum, s) => sum + (s.end - s.start), 0) };
  }

  close(): void {
    diagnostics.unsubscribe('http.server.request.start', this.#onStart);
    diagnostics.unsubscribe('http.server.response.finish', this.#onFinish);
  }
}
