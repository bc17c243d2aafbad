// Writes a scripted reply as an HTTP response: faults before headers, SSE streams (whole or broken on
// purpose) and plain JSON bodies. server.ts decides which reply; this module only plays it.

import type { ServerResponse } from 'node:http';
import {
  httpFaultAction,
  isHttpFault,
  isStreamFault,
  streamFaultReply,
  toolCallFaultReply,
  type StreamFault,
} from './faults.ts';
import type { Reply, ScenarioRequest, TextReply, ToolCallsReply } from './types.ts';
import {
  completionBody,
  estimatePromptTokens,
  SSE_DONE,
  sseEvent,
  streamChunks,
  toWireReply,
  type WireContext,
} from './wire.ts';

/** How long a stalled answer stays silent when nobody gives up: longer than any test waits. */
const STALL_MS = 10 * 60_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Writes and waits until the data is handed to the socket; false when the client has gone. */
function write(res: ServerResponse, data: string): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = () => resolve(false);
    res.once('close', onClose);
    res.write(data, (error) => {
      res.off('close', onClose);
      resolve(!error);
    });
  });
}

/** Waits `ms`, or less when the client goes away first; true when the client is still there. */
function waitForClient(res: ServerResponse, ms: number): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(!res.destroyed);
    }, ms);
    res.once('close', onClose);
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function openAIError(message: string, type: string, code: string | null): { error: Record<string, unknown> } {
  return { error: { message, type, param: null, code } };
}

async function stream(
  res: ServerResponse,
  chunkDelayMs: number,
  chunks: Record<string, unknown>[],
  requestId: string,
  ending: { type: 'done'; omitDone?: boolean } | { type: 'break'; after: number; how: StreamFault['fault'] },
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-request-id': requestId,
  });
  const limit = ending.type === 'break' ? Math.min(ending.after, chunks.length) : chunks.length;
  for (let i = 0; i < limit; i++) {
    if (i > 0 && chunkDelayMs > 0) await sleep(chunkDelayMs);
    if (!(await write(res, sseEvent(chunks[i])))) return;
  }
  if (ending.type === 'done') {
    if (ending.omitDone === true) res.end();
    else if (await write(res, SSE_DONE)) res.end();
    return;
  }
  switch (ending.how) {
    case 'cut_mid_text':
    case 'cut_mid_tool_args':
      res.socket?.destroy();
      return;
    case 'malformed_sse':
      if (await write(res, 'data: {"id":"chatcmpl-broken","choices":[{"delta":{"content":\n\n')) res.end();
      return;
    case 'stall_mid_stream':
      // Silent but open: only the client's giving up (or close()) ends it.
      await waitForClient(res, STALL_MS);
      res.end();
      return;
    case 'stream_error':
      if (await write(res, sseEvent(openAIError('The model produced an invalid response mid-stream.', 'server_error', null)))) {
        res.end();
      }
      return;
    default: {
      const unreachable: never = ending.how;
      throw new Error(`Unknown stream ending ${String(unreachable)}`);
    }
  }
}

/**
 * Answers one chat completion request with `reply`: an HTTP fault, a stream (possibly broken on
 * purpose) or a JSON body. `delayMs` holds back every byte, ending early if the client disconnects;
 * `chunkDelayMs` paces the stream chunks.
 */
export async function playReply(
  res: ServerResponse,
  reply: Reply,
  request: ScenarioRequest,
  options: { includeUsage: boolean; chunkDelayMs: number; delayMs?: number },
): Promise<void> {
  const { includeUsage, chunkDelayMs, delayMs = 0 } = options;
  if (delayMs > 0 && !(await waitForClient(res, delayMs))) return;
  const requestId = `req_scripted_${request.callIndex}`;
  const ctx: WireContext = {
    id: `chatcmpl-scripted-${request.callIndex}`,
    model: request.model || 'scripted',
    created: Math.floor(Date.now() / 1000),
    promptTokens: estimatePromptTokens(request.body),
  };

  let answer: TextReply | ToolCallsReply;
  let streamFault: StreamFault | undefined;
  let breakAfter = 0;
  if ('fault' in reply) {
    if (isHttpFault(reply)) {
      const presented = (request.headers['authorization'] ?? '').replace(/^bearer\s+/i, '');
      const action = httpFaultAction(reply, presented);
      if (action.type === 'destroy') res.socket?.destroy();
      else if (action.type === 'respond') {
        res.writeHead(action.status, { ...action.headers, 'x-request-id': requestId });
        res.end(action.body);
      }
      // 'hang': never answer; close() or the client's abort ends the socket.
      return;
    }
    if (isStreamFault(reply)) {
      const planned = streamFaultReply(reply, request.tools);
      answer = planned.reply;
      streamFault = reply;
      breakAfter = reply.afterChunks ?? planned.defaultAfterChunks;
    } else {
      answer = toolCallFaultReply(reply, request.tools);
    }
  } else {
    answer = reply;
  }

  const wire = toWireReply(answer, request.callIndex);
  if (request.stream) {
    const chunks = streamChunks(wire, ctx, includeUsage);
    await stream(
      res,
      chunkDelayMs,
      chunks,
      requestId,
      streamFault === undefined ? { type: 'done', omitDone: wire.omitDone === true } : { type: 'break', after: breakAfter, how: streamFault.fault },
    );
    return;
  }

  const body = JSON.stringify(completionBody(wire, ctx));
  switch (streamFault?.fault) {
    case undefined:
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-request-id': requestId });
      res.end(body);
      return;
    case 'cut_mid_text':
    case 'cut_mid_tool_args':
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': requestId });
      if (await write(res, body.slice(0, Math.floor(body.length / 2)))) res.socket?.destroy();
      return;
    case 'malformed_sse':
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': requestId });
      res.end(body.slice(0, Math.floor(body.length / 2)));
      return;
    case 'stall_mid_stream':
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': requestId });
      if (await write(res, body.slice(0, Math.floor(body.length / 2)))) await waitForClient(res, STALL_MS);
      res.end();
      return;
    case 'stream_error':
      sendJson(res, 200, openAIError('The model produced an invalid response.', 'server_error', null), { 'x-request-id': requestId });
      return;
    default: {
      const unreachable: never = streamFault;
      throw new Error(`Unknown stream fault ${String(unreachable)}`);
    }
  }
}

