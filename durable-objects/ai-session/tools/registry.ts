/**
 * The `builder.*` tools the model may call, in one table: the read tools (read-tools.ts) and the
 * write-gated change tools (stage, validate, discard) over the session. `builder.change.apply`
 * is never offered; called anyway it answers AI_TOOL_FORBIDDEN, because only a person applies,
 * through the REST apply. Arguments are read (tool-arguments.ts) with the same zod schemas that describe them.
 */
import * as z from 'zod';
import { ApiError } from '../../../shared/api-error.ts';
import { logError } from '../../../shared/errors-report.ts';
import { toolError, toolOk, type ToolEnvelope } from '../../../shared/ai/tool-envelope.ts';
import type { Actor, SessionCore } from '../session.ts';
import type { VersionSource } from '../overlay/versions.ts';
import { READ_TOOLS, type ReadToolContext } from './read-tools.ts';
import { FORBIDDEN_TOOL_NAMES, MODEL_TOOL_NAMES, matchToolName } from '../../../shared/ai/tool-names.ts';
import { prepareChangeSet } from './stage-input.ts';
import { readToolArguments } from './tool-arguments.ts';

const sessionId = z
  .string().max(100).optional().describe('This session id (optional; other sessions are refused).');

export const CHANGE_TOOLS = {
  'builder.change.stage': {
    description:
      'Stage a changeSet into this session\'s working copy (nothing is saved to the project). Staging adds to what is already staged; every call makes a new change-set version.',
    args: z.strictObject({ sessionId, changeSet: z.unknown().describe('The changeSet (schemaVersion "1.0").') }),
  },
  'builder.change.validate': {
    description: 'Validate the staged working copy with the package rules; answers every error with hints.',
    args: z.strictObject({ sessionId, changeSetId: z.string().max(100).optional().describe('The version to validate; the latest when absent.') }),
  },
  'builder.change.discard': {
    description: 'Drop everything staged in this session and go back to the stored package.',
    args: z.strictObject({ sessionId, changeSetId: z.string().max(100).optional() }),
  },
} as const;

export const FORBIDDEN_TOOLS: ReadonlySet<string> = new Set(FORBIDDEN_TOOL_NAMES);
const KNOWN_TOOL_NAMES: readonly string[] = [...MODEL_TOOL_NAMES, ...FORBIDDEN_TOOL_NAMES];

/** OpenAI function names allow only [a-zA-Z0-9_-]: `builder.step.read` travels as `builder_step_read`. */
export function toWireName(name: string): string {
  return name.replaceAll('.', '_');
}

/** Our dotted name for the name a model called (as shared/ai/tool-names.ts reads its spellings), else the name as called. */
export function fromWireName(wire: string): string {
  return matchToolName(wire, KNOWN_TOOL_NAMES) ?? wire;
}

function fromApiError(error: ApiError): ToolEnvelope<never> {
  return toolError(error.code, {
    message: error.message,
    ...(error.hints ? { hints: error.hints } : {}),
    ...(error.details ? { details: error.details } : {}),
  });
}

/** What the lenient reading interpreted, told to the model beside the result (meta.notes). */
function withNotes(envelope: ToolEnvelope, notes: readonly string[]): ToolEnvelope {
  if (notes.length === 0) return envelope;
  return { ...envelope, meta: { ...envelope.meta, notes: [...((envelope.meta.notes as string[] | undefined) ?? []), ...notes] } } as ToolEnvelope;
}

export interface ToolCaller {
  actor: Actor;
  source: VersionSource;
}

/** Run one tool by its dotted name. Never throws for a tool problem: the envelope carries it. */
export async function runTool(core: SessionCore, caller: ToolCaller, name: string, rawArgs: unknown): Promise<ToolEnvelope> {
  if (FORBIDDEN_TOOLS.has(name)) {
    return toolError('AI_TOOL_FORBIDDEN', {
      message: 'Changes are applied only by a person, from the workbench. Stage and validate them instead.',
      hints: ['Call builder.change.validate and tell the user the changes are ready to review.'],
    });
  }
  const meta = core.meta;
  try {
    if (name in READ_TOOLS) {
      const tool = READ_TOOLS[name as keyof typeof READ_TOOLS];
      const { ctx, view } = await core.view();
      const only = view.pkg.workflows.length === 1 ? view.pkg.workflows[0]!.id : undefined;
      const args = readToolArguments(name, tool.args, rawArgs, only);
      if (!args.ok) return withNotes(args.error, args.notes);
      const context: ReadToolContext = { view, session: meta!, domainProfile: ctx.domainProfile };
      return withNotes((tool.run as (c: ReadToolContext, a: unknown) => ToolEnvelope)(context, args.data), args.notes);
    }
    if (name in CHANGE_TOOLS) {
      const tool = CHANGE_TOOLS[name as keyof typeof CHANGE_TOOLS];
      const args = readToolArguments(name, tool.args, rawArgs);
      if (!args.ok) return withNotes(args.error, args.notes);
      const notes = args.notes;
      const data = args.data as { sessionId?: string; changeSet?: unknown; changeSetId?: string };
      if (data.sessionId !== undefined && data.sessionId !== meta?.sessionId) {
        return toolError('AI_TOOL_FORBIDDEN', { message: 'Tools can only work on this session.' });
      }
      switch (name) {
        case 'builder.change.stage': {
          const prepared = prepareChangeSet(data.changeSet, (await core.view()).view.pkg);
          if (!prepared.ok) return withNotes(prepared.error, notes);
          const result = await core.stage(prepared.changeSet, caller.actor, caller.source);
          return withNotes(toolOk(result, { revision: null, version: result.version }), [...notes, ...prepared.notes, ...(result.notes ?? [])]);
        }
        case 'builder.change.validate': {
          const result = await core.validate(data.changeSetId);
          return withNotes(toolOk(result, { revision: null, version: result.version }), notes);
        }
        default: {
          const actor = caller.source === 'ai' ? ({ kind: 'ai' } as const) : { kind: 'user' as const, userId: caller.actor.userId, name: caller.actor.name };
          return toolOk(await core.discard(actor), { revision: null });
        }
      }
    }
  } catch (error) {
    if (error instanceof ApiError) return fromApiError(error);
    // The result goes to a third-party model: a code and a plain message, the details only to our log.
    logError('ai session: tool failed unexpectedly', error, { tool: name });
    return toolError('AI_TOOL_EXECUTION_ERROR', { hints: ['Try the tool again once; if it fails again, continue without it and say so.'] });
  }
  return toolError('AI_TOOL_NOT_ALLOWED', {
    message: `There is no tool named "${name}" that the AI may use.`,
    hints: [`Allowed tools: ${MODEL_TOOL_NAMES.map(toWireName).join(', ')}.`],
  });
}
