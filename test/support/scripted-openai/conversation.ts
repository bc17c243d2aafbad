/**
 * The conversation checks real servers make before answering, with their wording. OpenAI (and
 * DeepSeek, which copies it) refuse a `tool` message that answers no tool call of the assistant
 * message before it, and an assistant's tool calls left without their answers. Chat templates of
 * Mistral, Gemma and Llama 2 (under vLLM, TGI or llama.cpp) refuse two user messages in a row
 * (the `alternatingRoles` quirk). A client that sends either shape fails on those servers, so the
 * scripted server refuses it the same way instead of answering what a real one would not.
 */
import type { ChatMessage } from './types.ts';

/** OpenAI's message for the first shape problem of `messages`, or null. */
export function toolShapeProblem(messages: readonly ChatMessage[]): string | null {
  let open: string[] = [];
  for (const [index, message] of messages.entries()) {
    if (message.role === 'tool') {
      const at = open.indexOf(message.tool_call_id ?? '');
      if (at === -1) return `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (messages[${index}])`;
      open.splice(at, 1);
      continue;
    }
    if (open.length > 0) {
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(', ')}`;
    }
    open = message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.id ?? '') : [];
  }
  return null;
}

/** The chat template's message when two user messages follow each other, or null. */
export function alternationProblem(messages: readonly ChatMessage[]): string | null {
  const turns = messages.filter((m) => m.role === 'user' || m.role === 'assistant');
  for (let i = 1; i < turns.length; i++) {
    if (turns[i]!.role === 'user' && turns[i - 1]!.role === 'user') {
      return 'Conversation roles must alternate user/assistant/user/assistant/...';
    }
  }
  return null;
}
