import { describe, expect, it } from 'vitest';
import type { ServerMessage } from '../../../shared/protocol.ts';
import { lazyConnect, type LoadConnect } from './lazy-connect.ts';
import type { LiveConnection, LiveHandlers, LiveStatus } from './live-socket.ts';

/** A socket module that arrives when the test says so, and the connection it opens. */
function deferredModule() {
  let arrive!: () => void;
  let fail!: () => void;
  const calls: string[] = [];
  let given: LiveHandlers | null = null;
  const real: LiveConnection = {
    send: (message) => (calls.push(`send ${message.type}`), true),
    sendBinary: () => (calls.push('binary'), true),
    close: () => {
      calls.push('close');
      given?.onStatus('closed');
    },
  };
  const load: LoadConnect = () =>
    new Promise((resolve, reject) => {
      arrive = () =>
        resolve((handlers) => {
          given = handlers;
          calls.push('connect');
          handlers.onStatus('connecting');
          return real;
        });
      fail = () => reject(new Error('chunk failed'));
    });
  return { load, calls, arrive: () => arrive(), fail: () => fail(), handlers: () => given! };
}

function recorder() {
  const statuses: LiveStatus[] = [];
  const messages: ServerMessage[] = [];
  const handlers: LiveHandlers = { onStatus: (s) => statuses.push(s), onMessage: (m) => messages.push(m), lastSeq: () => 7 };
  return { statuses, messages, handlers };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('lazyConnect', () => {
  it('is connecting while its module loads, sends nothing yet, then delegates to the real connection', async () => {
    const module = deferredModule();
    const seen = recorder();
    const connection = lazyConnect(module.load, seen.handlers);
    expect(seen.statuses).toEqual(['connecting']);
    expect(connection.send({ type: 'stop' })).toBe(false);
    expect(connection.sendBinary(new Uint8Array([1]))).toBe(false);

    module.arrive();
    await settle();
    expect(module.calls).toEqual(['connect']);
    expect(module.handlers().lastSeq()).toBe(7);
    module.handlers().onStatus('open');
    module.handlers().onMessage({ type: 'error', code: 'X', message: 'm' });
    expect(connection.send({ type: 'stop' })).toBe(true);
    expect(module.calls).toEqual(['connect', 'send stop']);
    expect(seen.statuses).toEqual(['connecting', 'connecting', 'open']);
    expect(seen.messages).toHaveLength(1);

    connection.close();
    expect(module.calls.at(-1)).toBe('close');
    expect(seen.statuses.at(-1)).toBe('closed');
  });

  it('closed before its module arrives, opens no socket and tells its handlers nothing more', async () => {
    const module = deferredModule();
    const seen = recorder();
    const connection = lazyConnect(module.load, seen.handlers);
    connection.close();
    module.arrive();
    await settle();
    expect(module.calls).toEqual([]);
    expect(seen.statuses).toEqual(['connecting', 'closed']);
  });

  it('after close, neither frames nor statuses of the real socket reach the handlers (a newer connection may own them)', async () => {
    const module = deferredModule();
    const seen = recorder();
    const connection = lazyConnect(module.load, seen.handlers);
    module.arrive();
    await settle();
    connection.close();
    const before = seen.statuses.length;
    module.handlers().onStatus('reconnecting');
    module.handlers().onMessage({ type: 'error', code: 'X', message: 'late' });
    expect(seen.statuses).toHaveLength(before);
    expect(seen.messages).toEqual([]);
  });

  it('a module that fails to load leaves the connection closed', async () => {
    const module = deferredModule();
    const seen = recorder();
    const connection = lazyConnect(module.load, seen.handlers);
    module.fail();
    await settle();
    expect(seen.statuses).toEqual(['connecting', 'closed']);
    expect(connection.send({ type: 'stop' })).toBe(false);
  });
});
