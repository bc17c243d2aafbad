/**
 * The prompt composer: runs the layer builders in the fixed order of
 * PROMPT_LAYER_IDS and refuses, with AI_PROMPT_COMPOSE_ERROR, to send a prompt with a layer missing
 * or empty; then turns the layers, the history window and the user's message into the OpenAI
 * messages of a turn: one system message (each layer under a stable header), the history, the user.
 */
import { ApiError } from '../../../shared/api-error.ts';
import { PROMPT_LAYER_IDS, PROMPT_LAYER_TITLES } from '../../../shared/ai/turn.ts';
import type { PromptLayer, PromptLayerId } from '../../../shared/ai/turn.ts';
import type { ChatMessage } from '../../../shared/llm/types.ts';
import { LAYER_BUILDERS } from './layers.ts';
import type { ComposeInput, LayerBuilder } from './layers.ts';

export type { ComposeInput, LayerBuilder, WritePolicy } from './layers.ts';

/** A builder table; a missing entry is a composition error, not a type error, so tests can prove the check. */
export type LayerBuilders = Readonly<Partial<Record<PromptLayerId, LayerBuilder>>>;

function composeError(id: PromptLayerId, problem: string, cause?: unknown): ApiError {
  return new ApiError('AI_PROMPT_COMPOSE_ERROR', {
    message: `The instructions for the AI could not be prepared: layer ${id} (${PROMPT_LAYER_TITLES[id]}) ${problem}.`,
    hints: ['This is a bug in the workbench, not in your package. Try again; if it keeps happening, report it with the session id.'],
    extra: { layerId: id },
    cause,
  });
}

/** Runs `builders` in layer order; every layer must exist and produce text. */
export function composeWith(builders: LayerBuilders, input: ComposeInput): PromptLayer[] {
  return PROMPT_LAYER_IDS.map((id) => {
    const build = builders[id];
    if (typeof build !== 'function') throw composeError(id, 'is missing');
    let text: string;
    try {
      text = build(input);
    } catch (error) {
      throw composeError(id, 'failed to build', error);
    }
    if (typeof text !== 'string' || text.trim() === '') throw composeError(id, 'is empty');
    return { id, title: PROMPT_LAYER_TITLES[id], text: text.trim() };
  });
}

/** The eight layers of the system instruction, in fixed order (PROMPT_LAYER_IDS). */
export function composeSystemInstruction(input: ComposeInput): PromptLayer[] {
  return composeWith(LAYER_BUILDERS, input);
}

/** The stable header line a layer starts with inside the system message. */
export function layerHeader(layer: Pick<PromptLayer, 'id' | 'title'>): string {
  return `## [Layer-${layer.id}] ${layer.title}`;
}

/** The system message text: every layer under its header, in order. */
export function renderSystemPrompt(layers: readonly PromptLayer[]): string {
  const ids = layers.map((l) => l.id).join(',');
  if (ids !== PROMPT_LAYER_IDS.join(',')) {
    throw new ApiError('AI_PROMPT_COMPOSE_ERROR', {
      message: `The instructions for the AI could not be prepared: expected the layers ${PROMPT_LAYER_IDS.join(', ')} in that order, got ${ids || 'none'}.`,
      hints: ['This is a bug in the workbench, not in your package. Try again; if it keeps happening, report it with the session id.'],
    });
  }
  return layers.map((layer) => `${layerHeader(layer)}\n${layer.text}`).join('\n\n');
}

export interface ComposeMessagesInput {
  layers: readonly PromptLayer[];
  /** The history window (history.ts), oldest first, without the current user message. */
  history: readonly ChatMessage[];
  userMessage: string;
}

/** The OpenAI messages of a turn: one system message, the history window, then the user's message. */
export function composeMessages({ layers, history, userMessage }: ComposeMessagesInput): ChatMessage[] {
  return [{ role: 'system', content: renderSystemPrompt(layers) }, ...history, { role: 'user', content: userMessage }];
}
