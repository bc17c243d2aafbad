/**
 * Tool errors that teach: every error sent back to the model carries its code, what was wrong and
 * a corrected example call for this session's target; the same failing call sent a second time
 * gets a blunter hint, so a model that repeats itself is told plainly to change course.
 */
import type { ChatMessage } from '../../../shared/llm/types.ts';
import type { ToolEnvelope } from '../../../shared/ai/tool-envelope.ts';
import type { SessionMeta } from '../../../shared/ai/session.ts';
import { MODEL_TOOL_NAMES } from '../../../shared/ai/tool-names.ts';
import { exampleChangeSet } from '../prompt/output-contract.ts';
import { fromWireName, toWireName } from './registry.ts';
import { jsonNestsDeeper } from '../../../shared/json-depth.ts';

export interface ExampleCall {
  /** The function name as the model calls it (`builder_step_read`). */
  tool: string;
  arguments: Record<string, unknown>;
}

/** A call of `name` that is valid for this session, as a pattern to copy. */
export function exampleCall(name: string, session: SessionMeta | undefined): ExampleCall {
  const workflowId = session?.workflowId ?? (session?.targetType === 'workflow' ? session.targetId : null) ?? '<workflowId>';
  const target = session?.targetId ?? null;
  const args = ((): Record<string, unknown> => {
    switch (name) {
      case 'builder.workflow.read':
        return { workflowId };
      case 'builder.step.read':
        return { workflowId, nodeId: session?.targetType === 'step' && target ? target : '<nodeId>' };
      case 'builder.agent.read':
        return { agentId: session?.targetType === 'agent' && target ? target : '<agentId>' };
      case 'builder.asset.read':
        return { path: session?.targetType === 'asset' && target ? target : 'assets/<folder>/<file>.md' };
      case 'builder.refs.find':
        return session?.targetType === 'step' && target
          ? { locator: { type: 'step', id: target, workflowId } }
          : { locator: { type: 'workflow', id: workflowId } };
      case 'builder.change.stage':
        return session ? { changeSet: exampleChangeSet(session) } : { changeSet: {} };
      case 'builder.change.validate':
      case 'builder.change.discard':
      case 'builder.context.get':
        return {};
      default:
        // An unknown or forbidden tool: show the call that does what it most likely wanted.
        return {};
    }
  })();
  const known: readonly string[] = MODEL_TOOL_NAMES;
  const tool = known.includes(name) ? name : name === 'builder.change.apply' ? 'builder.change.validate' : 'builder.context.get';
  return { tool: toWireName(tool), arguments: args };
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Whether an earlier call in `messages` had the same tool and arguments and failed with `code`. */
export function failedBefore(messages: readonly ChatMessage[], name: string, args: unknown, toolCallId: string, code: string): boolean {
  const wanted = canonical(args ?? {});
  const calls = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const call of message.tool_calls ?? []) {
      if (call.type !== 'function' || call.id === toolCallId || fromWireName(call.function.name) !== name) continue;
      let parsed: unknown;
      try {
        // Too deep to walk (canonical recurses): compared as the text, as tool-calls.ts kept it.
        if (jsonNestsDeeper(call.function.arguments)) throw new Error('too deep');
        parsed = call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments);
      } catch {
        parsed = call.function.arguments;
      }
      calls.set(call.id, canonical(parsed));
    }
  }
  return messages.some((message) => {
    if (message.role !== 'tool' || calls.get(message.tool_call_id) !== wanted) return false;
    try {
      const result = JSON.parse(String(message.content)) as ToolEnvelope;
      return !result.ok && result.error.code === code;
    } catch {
      return false;
    }
  });
}

/** The error, with an example call and (when repeated) a plainer hint first. Successes pass through. */
export function teach(result: ToolEnvelope, name: string, session: SessionMeta | undefined, repeated: boolean): ToolEnvelope {
  if (result.ok) return result;
  const example = exampleCall(name, session);
  const hints = [...(result.error.hints ?? [])];
  hints.push(`Example of a valid call: ${example.tool} with arguments ${JSON.stringify(example.arguments)}.`);
  if (repeated) {
    hints.unshift(
      `You already sent exactly this call and it failed with ${result.error.code}. Sending it again will fail again: ` +
        'change the arguments as the message and details say (copy the example), or call another tool.',
    );
  }
  return { ...result, error: { ...result.error, hints, example } };
}
