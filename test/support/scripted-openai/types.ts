// Types of the scripted OpenAI-compatible server: what a scenario sees and what it may answer.

/** One message of an OpenAI chat request, loosely typed: the server reads what a real provider reads. */
export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id?: string; type?: string; function?: { name?: string; arguments?: string | null } }>;
  tool_call_id?: string;
  name?: string;
  [extra: string]: unknown;
}

/** One function tool offered by the client. */
export interface OfferedTool {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

/** What a scenario is given to decide its reply. */
export interface ScenarioRequest {
  body: Record<string, unknown>;
  messages: ChatMessage[];
  tools: OfferedTool[];
  model: string;
  stream: boolean;
  /** Lower-cased header names; Authorization is kept. */
  headers: Record<string, string>;
  /** 0-based count of chat completion requests since start or the last reset(). */
  callIndex: number;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface TextReply extends StreamEnding {
  content: string;
  reasoningContent?: string;
  /** OpenAI's `refusal`: why the model declines (sent with empty content, as OpenAI does). */
  refusal?: string;
  finishReason?: FinishReason;
  /** Stream text in fragments of exactly this many characters (default: up to 8, at most 200 fragments). */
  fragmentChars?: number;
}

/** How a stream ends, as some servers end it (both replies take these). */
export interface StreamEnding {
  /**
   * The last chunk's `finish_reason` as some servers send it: `'null'` never says why the answer
   * ended (null on every chunk), `'empty'` sends `""`. Either way `data: [DONE]` still follows.
   */
  finishReasonOnWire?: 'null' | 'empty';
  /** Leave out the closing `data: [DONE]` (LM Studio and llama.cpp end the stream without it). */
  omitDone?: boolean;
}

export interface ScriptedToolCall {
  name: string;
  /** An object is JSON-encoded; a string is sent as is (it may be invalid JSON); null is sent as null. */
  arguments: string | Record<string, unknown> | null;
  id?: string;
}

export interface ToolCallsReply extends StreamEnding {
  toolCalls: ScriptedToolCall[];
  content?: string;
  reasoningContent?: string;
  finishReason?: FinishReason;
  /** Cut every call's arguments to this many characters (models do so when they hit max_tokens). */
  truncateArgumentsAt?: number;
  /** Stream text and arguments in fragments of exactly this many characters. */
  fragmentChars?: number;
  /** Send the calls without any `id` (some local servers do), whatever `id` says. */
  omitIds?: boolean;
  /**
   * Stream each function name in pieces of this many characters, the first with the call's header
   * and the rest in deltas of their own (Gemini's OpenAI-compatible endpoint: "builder_", "step_read").
   */
  nameFragmentChars?: number;
}

/**
 * How a real server refuses what it cannot do, for every request of one model (control API
 * `quirks`). Checked before the reply is chosen; a refused request still counts in the recordings.
 */
export interface ServerQuirks {
  /**
   * Top-level request fields the server does not know: a request carrying one gets a 400
   * `Unrecognized request argument supplied: <name>` (Azure's wording), e.g. ['stream_options'].
   */
  rejectParams?: string[];
  /**
   * The model cannot call tools: a request offering tools gets the 400 of Ollama
   * (`registry.ollama.ai/library/<model> does not support tools`) or of vLLM started without a tool
   * parser (`"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`).
   */
  noTools?: 'ollama' | 'vllm';
  /**
   * The server does not stream: a request with `stream: true` still gets one `application/json`
   * chat completion (simple model servers and some proxies in front of real ones do this).
   */
  ignoreStream?: boolean;
  /**
   * The chat template needs user and assistant turns to alternate (Mistral, Gemma and Llama 2
   * templates under vLLM, TGI or llama.cpp): two user messages in a row get a 400.
   */
  alternatingRoles?: boolean;
}

/** Misbehaviour on demand. Each is what a real provider or network does now and then. */
export type FaultReply =
  /** 429 with Retry-After (seconds) and an OpenAI-style error body. */
  | { fault: 'rate_limit'; retryAfterSeconds?: number }
  /** 429 with error.code 'insufficient_quota': retrying never helps. */
  | { fault: 'insufficient_quota' }
  | { fault: 'server_error'; status?: 500 | 502 | 503 | 504; retryAfterSeconds?: number }
  /** 401 as OpenAI sends it; echoKey puts the full presented key in the message, as a careless provider might. */
  | { fault: 'invalid_api_key'; echoKey?: boolean }
  /** Any other HTTP error, e.g. 400, 403 or 404. */
  | { fault: 'http_error'; status: number; body?: unknown; headers?: Record<string, string> }
  /** The socket is destroyed before any byte of the response. */
  | { fault: 'reset_before_headers' }
  /** No answer until the client gives up or the server closes. */
  | { fault: 'hang' }
  /** 200 with a body that is not JSON (an HTML error page by default). */
  | { fault: 'non_json'; contentType?: string; body?: string }
  /** A stream whose data line is not JSON. */
  | { fault: 'malformed_sse'; afterChunks?: number }
  /** An error object inside a 200 stream, as some providers send when they fail mid-answer. */
  | { fault: 'stream_error'; afterChunks?: number; message?: string }
  /** Text streaming starts, then nothing more is sent (the connection stays open) until the client gives up. */
  | { fault: 'stall_mid_stream'; afterChunks?: number }
  /** Text streaming starts, then the socket is destroyed. */
  | { fault: 'cut_mid_text'; afterChunks?: number; content?: string }
  /** A tool call starts streaming, then the socket is destroyed inside its arguments. */
  | { fault: 'cut_mid_tool_args'; afterChunks?: number; name?: string; arguments?: Record<string, unknown> }
  /** finish_reason "length" with arguments cut mid-JSON. */
  | { fault: 'truncated_tool_args'; name?: string; arguments?: Record<string, unknown>; keepChars?: number }
  /** A tool call whose function.arguments is null. */
  | { fault: 'null_arguments'; name?: string }
  /** A tool call naming a tool that was not offered. */
  | { fault: 'unknown_tool'; name?: string }
  /** A tool call with an argument of about `bytes` characters. */
  | { fault: 'huge_arguments'; bytes: number; name?: string };

export type FaultName = FaultReply['fault'];

export type Reply = TextReply | ToolCallsReply | FaultReply;

export type Scenario = (request: ScenarioRequest) => Reply | Promise<Reply>;

/** A request as the server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-cased header names, Authorization included; use redactRecordedRequest() before printing. */
  headers: Record<string, string>;
  /** The parsed JSON body, the raw text when it is not JSON, or null when empty. */
  body: unknown;
  receivedAt: number;
}
