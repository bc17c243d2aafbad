import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CLOSE_CODES } from '../../../shared/protocol.ts';
import { PING_FRAME, PONG_FRAME } from '../../../shared/protocol-limits.ts';
import { connectLive, DEAD_SOCKET_CODE, type LiveStatus } from './live-socket.ts';

/** A WebSocket that opens, answers and dies when the test says so. */
class FakeSocket extends EventTarget {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  static all: FakeSocket[] = [];
  readonly CONNECTING = 0;
  readonly OPEN = 1;
  readonly CLOSING = 2;
  readonly CLOSED = 3;
  readyState = 0;
  binaryType = 'blob';
  sent: string[] = [];
  constructor(readonly url: string) {
    super();
    FakeSocket.all.push(this);
  }
  send(data: string): void {
    this.sent.push(data);
  }
  close(): void {
    this.readyState = 3;
  }
  open(): void {
    this.readyState = 1;
    this.dispatchEvent(new Event('open'));
  }
  receive(data: string): void {
    this.dispatchEvent(new MessageEvent('message', { data }));
  }
  /** The server closed it. */
  closedBy(code: number, reason: string): void {
    this.readyState = 3;
    this.dispatchEvent(Object.assign(new Event('close'), { code, reason, wasClean: true }));
  }
}

describe('connectLive keep-alive', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    FakeSocket.all = [];
  });
  afterEach(() => vi.useRealTimers());

  async function start() {
    const statuses: Array<{ status: LiveStatus; code?: number }> = [];
    const network = new EventTarget();
    const connection = connectLive(
      'ws://test/ws',
      { onMessage: () => {}, onStatus: (status, detail) => statuses.push({ status, ...(detail ? { code: detail.code } : {}) }), lastSeq: () => 0 },
      { keepAliveMs: 1_000, WebSocket: FakeSocket, network },
    );
    await vi.advanceTimersByTimeAsync(10);
    FakeSocket.all[0]!.open();
    return { statuses, network, connection, socket: FakeSocket.all[0]! };
  }

  it('pings a quiet socket and keeps it while the server answers', async () => {
    const { statuses, socket, connection } = await start();
    expect(statuses.at(-1)).toEqual({ status: 'open' });
    for (let round = 1; round <= 3; round++) {
      await vi.advanceTimersByTimeAsync(2_000);
      expect(socket.sent.filter((frame) => frame === PING_FRAME)).toHaveLength(round);
      socket.receive(PONG_FRAME);
    }
    expect(statuses.at(-1)).toEqual({ status: 'open' });
    expect(FakeSocket.all).toHaveLength(1);
    connection.close();
  });

  it('gives up a socket that answers nothing, says it is reconnecting and connects again', async () => {
    const { statuses, connection } = await start();
    await vi.advanceTimersByTimeAsync(3_100);
    expect(statuses).toContainEqual({ status: 'reconnecting', code: DEAD_SOCKET_CODE });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(FakeSocket.all.length).toBeGreaterThan(1);
    connection.close();
  });

  it('says reconnecting as soon as the browser goes offline, and reconnects at once when it is back', async () => {
    const { statuses, network, connection } = await start();
    network.dispatchEvent(new Event('offline'));
    expect(statuses.at(-1)).toEqual({ status: 'reconnecting' });
    network.dispatchEvent(new Event('online'));
    await vi.advanceTimersByTimeAsync(10);
    expect(FakeSocket.all).toHaveLength(2);
    FakeSocket.all[1]!.open();
    expect(statuses.at(-1)).toEqual({ status: 'open' });
    connection.close();
  });

  it('stays closed after a refusal for too many open sockets (4432): reconnecting would be refused again', async () => {
    const { statuses, socket, connection } = await start();
    socket.closedBy(CLOSE_CODES.TOO_MANY_SOCKETS, 'TOO_MANY_SOCKETS');
    expect(statuses.at(-1)).toEqual({ status: 'closed', code: CLOSE_CODES.TOO_MANY_SOCKETS });
    await vi.advanceTimersByTimeAsync(30_000);
    expect(FakeSocket.all).toHaveLength(1);
    connection.close();
  });

  it('stays closed when a newer tab of the same person replaced it (4432 SOCKET_REPLACED), even when the network comes back', async () => {
    const { statuses, socket, connection, network } = await start();
    socket.closedBy(CLOSE_CODES.TOO_MANY_SOCKETS, 'SOCKET_REPLACED');
    expect(statuses.at(-1)).toEqual({ status: 'closed', code: CLOSE_CODES.TOO_MANY_SOCKETS });
    network.dispatchEvent(new Event('online'));
    await vi.advanceTimersByTimeAsync(30_000);
    // Reconnecting would replace the newer tab's socket in turn: two tabs would take turns for ever.
    expect(FakeSocket.all).toHaveLength(1);
    connection.close();
  });
});
