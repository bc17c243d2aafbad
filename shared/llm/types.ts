// Types of a chat with an OpenAI-compatible model: the messages, tools and results the session engine
// and the Worker's provider adapter (worker/llm/) both speak. Pure types; the adapter's outcome is worker/llm/chat-outcome.ts.

import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';

/** The effective model settings for one call; resolving org policy and the user's profile happens elsewhere. */
export interface ProviderProfile {
  baseUrl: string;
  model: string;
  /** Decrypted only by the caller, for this call; never logged, never in a message. Null: no key (local models). */
  apiKey: string | null;
  /**
   * The longest silence of one model request: the wait for the answer to start (response headers)
   * and between two pieces of it. The whole call (retries included) has its own, longer deadline
   * (worker/llm/provider.ts callDeadlineSeconds: at least 10 minutes), so a slow steady stream finishes.
   */
  timeoutSeconds: number;
  contextWindow?: number;
}

/**
 * A user's saved LLM settings as stored, the key still sealed (AES-GCM ciphertext, nonce, key
 * version; worker/llm/crypto.ts): what the Worker reads with the cookie for a message and hands to
 * the session object, which alone opens the key, in memory, for the turn.
 */
export interface SealedLlmProfile {
  provider: string;
  baseUrl: string | null;
  model: string | null;
  timeoutSeconds: number;
  contextWindow: number | null;
  apiKeyCiphertext: string | null;
  apiKeyNonce: string | null;
  apiKeyVersion: number | null;
}

/** An assistant message with provider extras kept, e.g. DeepSeek's `reasoning_content`, so they can be sent back. */
export type AssistantMessage = ChatCompletionAssistantMessageParam & { reasoning_content?: string; [extra: string]: unknown };

export type ChatMessage = ChatCompletionMessageParam | AssistantMessage;

export type ChatTool = ChatCompletionTool;

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface ToolCallDelta {
  index: number;
  /** The call's id and name as known so far (they arrive with the first delta). */
  id: string;
  name: string;
  argumentsDelta: string;
}

export interface StreamChatRequest {
  messages: ChatMessage[];
  tools?: ChatTool[];
  signal?: AbortSignal;
  onTextDelta?: (text: string) => void;
  onReasoningDelta?: (text: string) => void;
  /** Raw argument fragments, NOT redacted: for progress only; show or store the result's redacted toolCalls. */
  onToolCallDelta?: (delta: ToolCallDelta) => void;
}

export interface AssembledToolCall {
  index: number;
  id: string;
  name: string;
  /** The arguments exactly as streamed; parse and validate them before running anything. */
  argumentsText: string;
  /**
   * True when the provider ended the turn normally (not `length` or `content_filter`, stream not cut)
   * and the call has a name. False means the arguments may be incomplete: never run it.
   */
  finishedCleanly: boolean;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface ChatResult {
  content: string;
  reasoningContent?: string;
  /** Why the model declined to answer (OpenAI's `refusal`), when it did. */
  refusal?: string;
  toolCalls: AssembledToolCall[];
  finishReason: FinishReason | null;
  usage?: TokenUsage;
  /** True when the provider sent no usage (it refused or ignored stream_options) and `usage` is our estimate. */
  usageEstimated?: boolean;
  /** True when the tool calls were recovered from text (a server without a tool parser). */
  toolCallsFromText?: boolean;
  /** The model name the provider reported. */
  model?: string;
  /** Non-standard fields of the assistant deltas (strings concatenated), e.g. `reasoning_content`. */
  providerExtras: Record<string, unknown>;
  /** The assistant message to append to the conversation, extras included. */
  assistantMessage: AssistantMessage;
  /** HTTP attempts made (1 + retries). */
  attempts: number;
}
