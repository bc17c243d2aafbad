// Ready-made scenarios for the scripted server: echo, a scripted tool loop, and the local product demo.

import type { ChatMessage, OfferedTool, Reply, Scenario, ScenarioRequest, TextReply } from './types.ts';

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

// ---------------------------------------------------------------------------------------------
// Demo: reads the context, reads the target, then summarises. Data-driven from the tools offered.

/** The tools the demo calls, in order, when they are offered. */
export const DEMO_READ_PLAN = ['builder_context_get', 'builder_step_read'] as const;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The first value found under `key` anywhere inside `value` (depth-first). */
function findKey(value: unknown, key: string, depth = 0): unknown {
  if (depth > 8 || typeof value !== 'object' || value === null) return undefined;
  if (!Array.isArray(value) && Object.hasOwn(value, key)) return (value as Record<string, unknown>)[key];
  for (const child of Object.values(value)) {
    const found = findKey(child, key, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Every string inside a JSON value, depth-first. */
function stringsIn(value: unknown, depth = 0): string[] {
  if (typeof value === 'string') return [value];
  if (depth > 8 || typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap((child) => stringsIn(child, depth + 1));
}

function toolResults(messages: ChatMessage[]): Array<{ name: string; value: unknown; text: string }> {
  const names = new Map<string, string>();
  for (const m of messages) {
    for (const call of m.tool_calls ?? []) if (call.id && call.function?.name) names.set(call.id, call.function.name);
  }
  return messages
    .filter((m) => m.role === 'tool')
    .map((m) => {
      const text = messageText(m);
      return { name: names.get(m.tool_call_id ?? '') ?? 'unknown', value: parseJson(text), text };
    });
}

/** Arguments for `tool` from its JSON Schema, filled with values found in earlier tool results. */
export function demoArguments(tool: OfferedTool, messages: ChatMessage[]): Record<string, unknown> {
  const properties = (tool.parameters?.['properties'] ?? {}) as Record<string, unknown>;
  const results = toolResults(messages).map((r) => r.value);
  const args: Record<string, unknown> = {};
  for (const key of Object.keys(properties)) {
    for (const value of results) {
      const found = findKey(value, key);
      if (found !== undefined) {
        args[key] = found;
        break;
      }
    }
  }
  return args;
}

function summary(messages: ChatMessage[], used: string[]): TextReply {
  const lines = toolResults(messages).map(({ name, value, text }) => {
    const failed = findKey(value, 'ok') === false;
    if (failed) {
      const message = findKey(value, 'message');
      return `- ${name}: it failed${typeof message === 'string' ? ` (${message})` : ''}.`;
    }
    const heading = stringsIn(value ?? text)
      .map((s) => /^#{1,3}\s+(.+)$/m.exec(s)?.[1])
      .find((h) => h !== undefined);
    return `- ${name}: ${text.length} characters${heading ? `, titled "${heading.trim()}"` : ''}.`;
  });
  const request = messageText(lastUserMessage(messages));
  return {
    content: [
      `I read ${used.length === 1 ? 'the context' : 'the context and the target'} for your request${request ? ` "${request}"` : ''}.`,
      ...lines,
      'Tell me what you would like to change and I will stage it for your review. (Scripted demo model.)',
    ].join('\n'),
  };
}

/**
 * The local demo: calls each tool of DEMO_READ_PLAN that is offered, one per turn, then ends with a
 * short summary of what the tools returned. Without builder tools it explains itself.
 */
export const demo: Scenario = ({ messages, tools }: ScenarioRequest) => {
  const plan = DEMO_READ_PLAN.flatMap((name) => tools.filter((t) => t.name === name));
  if (plan.length === 0) {
    return {
      content: `This is the scripted demo model. It reads the builder context and the target when it is offered the ${DEMO_READ_PLAN.join(' and ')} tools. You said: "${messageText(lastUserMessage(messages))}"`,
    };
  }
  const turn = assistantTurns(messages);
  const next = plan[turn];
  if (next !== undefined) {
    return {
      ...(turn === 0 ? { content: 'Let me look at the context first.' } : {}),
      toolCalls: [{ name: next.name, arguments: demoArguments(next, messages) }],
    };
  }
  return summary(
    messages,
    plan.map((t) => t.name),
  );
};

/** Scenarios chosen by the request's `model`. */
export const MODEL_SCENARIOS: Readonly<Record<string, Scenario>> = {
  'scripted-demo': demo,
  'scripted-echo': echo,
};
