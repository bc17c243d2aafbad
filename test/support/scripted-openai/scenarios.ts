// Ready-made scenarios for the scripted server: echo, a scripted tool loop, and the local product demo
// (the demo model lives in demo/: a small deterministic agent that stages real changes).

import { demo } from './demo/model.ts';
import type { ChatMessage, Reply, Scenario } from './types.ts';

export { demo };

/** The text of a message's content, whether a string or an array of content parts. */
export function messageText(message: ChatMessage | undefined): string {
  const content = message?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) =>
        typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string'
          ? (part as { text: string }).text
          : '',
      )
      .join('');
  }
  return '';
}

export function lastUserMessage(messages: ChatMessage[]): ChatMessage | undefined {
  return messages.findLast((m) => m.role === 'user');
}

/** How many assistant turns the conversation already holds: the step a tool loop has reached. */
export function assistantTurns(messages: ChatMessage[]): number {
  return messages.filter((m) => m.role === 'assistant').length;
}

/** A constant scenario. */
export function always(reply: Reply): Scenario {
  return () => reply;
}

/** Replies with text describing the last user message. */
export const echo: Scenario = ({ messages, tools }) => {
  const text = messageText(lastUserMessage(messages));
  const offered = tools.length > 0 ? ` (${tools.length} tool${tools.length === 1 ? '' : 's'} offered)` : '';
  return { content: `You said: "${text}"${offered}. This is the scripted echo model.` };
};

export interface ToolLoopOptions {
  /** The reply once every step has been played. */
  whenDone?: Reply;
}

/**
 * Plays `steps[n]` where n is the number of assistant turns already in the request, so the client's
 * tool loop drives it: step 0 answers the user, step 1 answers the first tool results, and so on.
 */
export function toolLoop(steps: Array<Reply | Scenario>, options: ToolLoopOptions = {}): Scenario {
  const whenDone: Reply = options.whenDone ?? { content: 'The scripted tool loop is finished.' };
  return (request) => {
    const step = steps[assistantTurns(request.messages)];
    if (step === undefined) return whenDone;
    return typeof step === 'function' ? step(request) : step;
  };
}

/** Scenarios chosen by the request's `model`. */
export const MODEL_SCENARIOS: Readonly<Record<string, Scenario>> = {
  'scripted-demo': demo,
  'scripted-echo': echo,
};
