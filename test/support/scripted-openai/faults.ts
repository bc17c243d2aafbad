// The faults the scripted server can play, sorted by where they happen: before headers (HTTP), inside a
// 200 stream, or as odd-but-well-formed tool calls.

import type { FaultReply, OfferedTool, ToolCallsReply } from './types.ts';

/** Faults decided before any byte of the response body. */
export type HttpFault = Extract<
  FaultReply,
  { fault: 'rate_limit' | 'insufficient_quota' | 'server_error' | 'invalid_api_key' | 'http_error' | 'reset_before_headers' | 'hang' | 'non_json' }
>;

/** Faults that happen after a 200 and some chunks. */
export type StreamFault = Extract<FaultReply, { fault: 'malformed_sse' | 'stream_error' | 'stall_mid_stream' | 'cut_mid_text' | 'cut_mid_tool_args' }>;

/** Faults that are well-formed replies with awkward tool calls. */
export type ToolCallFault = Extract<FaultReply, { fault: 'truncated_tool_args' | 'null_arguments' | 'unknown_tool' | 'huge_arguments' }>;

const HTTP_FAULTS: ReadonlySet<string> = new Set([
  'rate_limit',
  'insufficient_quota',
  'server_error',
  'invalid_api_key',
  'http_error',
  'reset_before_headers',
  'hang',
  'non_json',
]);
const STREAM_FAULTS: ReadonlySet<string> = new Set(['malformed_sse', 'stream_error', 'stall_mid_stream', 'cut_mid_text', 'cut_mid_tool_args']);

export function isHttpFault(fault: FaultReply): fault is HttpFault {
  return HTTP_FAULTS.has(fault.fault);
}

export function isStreamFault(fault: FaultReply): fault is StreamFault {
  return STREAM_FAULTS.has(fault.fault);
}

/** An HTTP answer to write: status, headers and body; or a socket action. */
export type HttpFaultAction =
  | { type: 'respond'; status: number; headers: Record<string, string>; body: string }
  | { type: 'destroy' }
  | { type: 'hang' };

function errorBody(message: string, type: string, code: string | null, param: string | null = null): string {
  return JSON.stringify({ error: { message, type, param, code } });
}

/** How OpenAI shows a wrong key in its 401 message: a few characters at each end. */
export function maskKey(key: string): string {
  if (key.length <= 8) return `${key.slice(0, 3)}***`;
  return `${key.slice(0, 5)}${'*'.repeat(Math.min(20, key.length - 9))}${key.slice(-4)}`;
}

export function httpFaultAction(fault: HttpFault, presentedKey: string): HttpFaultAction {
  const json = { 'content-type': 'application/json' };
  switch (fault.fault) {
    case 'rate_limit': {
      const seconds = fault.retryAfterSeconds ?? 1;
      return {
        type: 'respond',
        status: 429,
        headers: { ...json, 'retry-after': String(seconds) },
        body: errorBody(`Rate limit reached for requests. Please try again in ${seconds}s.`, 'requests', 'rate_limit_exceeded'),
      };
    }
    case 'insufficient_quota':
      return {
        type: 'respond',
        status: 429,
        headers: json,
        body: errorBody(
          'You exceeded your current quota, please check your plan and billing details.',
          'insufficient_quota',
          'insufficient_quota',
        ),
      };
    case 'server_error': {
      const status = fault.status ?? 500;
      const message =
        status === 503
          ? 'The engine is currently overloaded, please try again later.'
          : 'The server had an error while processing your request. Sorry about that!';
      const headers: Record<string, string> =
        fault.retryAfterSeconds === undefined ? json : { ...json, 'retry-after': String(fault.retryAfterSeconds) };
      return { type: 'respond', status, headers, body: errorBody(message, 'server_error', null) };
    }
    case 'invalid_api_key': {
      const shown = fault.echoKey === true ? presentedKey : maskKey(presentedKey);
      return {
        type: 'respond',
        status: 401,
        headers: json,
        body: errorBody(
          `Incorrect API key provided: ${shown}. You can find your API key at https://platform.openai.com/account/api-keys.`,
          'invalid_request_error',
          'invalid_api_key',
        ),
      };
    }
    case 'http_error':
      return {
        type: 'respond',
        status: fault.status,
        headers: { ...json, ...fault.headers },
        body:
          fault.body === undefined
            ? errorBody(`Scripted HTTP ${fault.status}.`, 'invalid_request_error', null)
            : typeof fault.body === 'string'
              ? fault.body
              : JSON.stringify(fault.body),
      };
    case 'reset_before_headers':
      return { type: 'destroy' };
    case 'hang':
      return { type: 'hang' };
    case 'non_json':
      return {
        type: 'respond',
        status: 200,
        headers: { 'content-type': fault.contentType ?? 'text/html; charset=utf-8' },
        body: fault.body ?? '<html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>',
      };
    default: {
      const unreachable: never = fault;
      throw new Error(`Unknown HTTP fault ${JSON.stringify(unreachable)}`);
    }
  }
}

function defaultToolName(tools: OfferedTool[]): string {
  return tools[0]?.name ?? 'builder_step_read';
}

const SAMPLE_ARGUMENTS = { workflowId: 'wf-main', nodeId: 'step-01-select-story', note: 'scripted arguments' };

/** The tool-call faults are ordinary replies with awkward content. */
export function toolCallFaultReply(fault: ToolCallFault, tools: OfferedTool[]): ToolCallsReply {
  switch (fault.fault) {
    case 'truncated_tool_args': {
      const text = JSON.stringify(fault.arguments ?? SAMPLE_ARGUMENTS);
      return {
        toolCalls: [{ name: fault.name ?? defaultToolName(tools), arguments: text }],
        truncateArgumentsAt: fault.keepChars ?? Math.floor(text.length / 2),
        finishReason: 'length',
      };
    }
    case 'null_arguments':
      return { toolCalls: [{ name: fault.name ?? defaultToolName(tools), arguments: null }] };
    case 'unknown_tool':
      return { toolCalls: [{ name: fault.name ?? 'builder_does_not_exist', arguments: {} }] };
    case 'huge_arguments':
      return {
        toolCalls: [{ name: fault.name ?? defaultToolName(tools), arguments: { content: 'x'.repeat(Math.max(0, fault.bytes)) } }],
      };
    default: {
      const unreachable: never = fault;
      throw new Error(`Unknown tool-call fault ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The reply a stream fault starts to send before it breaks, and after how many chunks it breaks. */
export function streamFaultReply(fault: StreamFault, tools: OfferedTool[]): { reply: ToolCallsReply | { content: string }; defaultAfterChunks: number } {
  switch (fault.fault) {
    case 'cut_mid_text':
    case 'malformed_sse':
    case 'stream_error':
    case 'stall_mid_stream':
      return {
        reply: { content: fault.fault === 'cut_mid_text' && fault.content !== undefined ? fault.content : 'This answer is going to be cut off in the middle of a sentence.' },
        defaultAfterChunks: 3,
      };
    case 'cut_mid_tool_args': {
      const text = JSON.stringify(fault.arguments ?? SAMPLE_ARGUMENTS);
      // role chunk + header + a couple of argument fragments, well before the JSON closes.
      return { reply: { toolCalls: [{ name: fault.name ?? defaultToolName(tools), arguments: text }] }, defaultAfterChunks: 4 };
    }
    default: {
      const unreachable: never = fault;
      throw new Error(`Unknown stream fault ${JSON.stringify(unreachable)}`);
    }
  }
}
