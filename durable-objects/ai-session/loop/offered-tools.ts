/**
 * The tools offered to the model in one turn, as OpenAI function tools: wire names
 * (`builder.step.read` → `builder_step_read`, the only characters OpenAI allows) and JSON Schemas
 * generated from the same zod schemas that parse the arguments (tools/registry.ts). The
 * changeSet argument of `builder.change.stage` is parsed by the strict ChangeSet schema inside
 * the stage, so its JSON Schema is that one. Suggest-only turns are offered no staging.
 */
import * as z from 'zod';
import { ChangeSet } from '../../../shared/ai/change-set.ts';
import { MODEL_TOOL_NAMES, type ModelToolName } from '../../../shared/ai/tool-names.ts';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { READ_TOOLS } from '../tools/read-tools.ts';
import { CHANGE_TOOLS, toWireName } from '../tools/registry.ts';
import { deepFreeze } from '../../../shared/deep-freeze.ts';

/** Tools a suggest-only turn may not use: it reads and suggests, it stages nothing. */
const STAGING_TOOLS: ReadonlySet<ModelToolName> = new Set(['builder.change.stage', 'builder.change.discard']);

export function offeredToolNames(suggestOnly: boolean): ModelToolName[] {
  return MODEL_TOOL_NAMES.filter((name) => !(suggestOnly && STAGING_TOOLS.has(name)));
}

type JsonSchema = Record<string, unknown>;

function schemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

function definition(name: ModelToolName): { description: string; parameters: JsonSchema } {
  if (name in READ_TOOLS) {
    const tool = READ_TOOLS[name as keyof typeof READ_TOOLS];
    return { description: tool.description, parameters: schemaOf(tool.args) };
  }
  const tool = CHANGE_TOOLS[name as keyof typeof CHANGE_TOOLS];
  const parameters = schemaOf(tool.args);
  if (name === 'builder.change.stage') {
    const properties = parameters['properties'] as Record<string, JsonSchema>;
    properties['changeSet'] = { ...schemaOf(ChangeSet), description: 'The changeSet to stage (schemaVersion "1.0").' };
  }
  return { description: tool.description, parameters };
}

const cache = new Map<string, ChatCompletionFunctionTool[]>();

/**
 * The function tools of a turn; computed once per kind of turn (the schemas never change at
 * runtime), frozen, so every request shares them and the provider serialises them once.
 */
export function offeredTools(suggestOnly: boolean): ChatCompletionFunctionTool[] {
  const key = suggestOnly ? 'suggest' : 'full';
  let tools = cache.get(key);
  if (!tools) {
    tools = offeredToolNames(suggestOnly).map((name) => {
      const { description, parameters } = definition(name);
      return { type: 'function' as const, function: { name: toWireName(name), description, parameters } };
    });
    // A copy: the JSON Schemas may share objects with zod's own, which must stay changeable.
    tools = deepFreeze(structuredClone(tools));
    cache.set(key, tools);
  }
  return tools;
}
