/** The prompt composer: fixed layer order, refusal of a missing or empty layer, the message list. */
import { describe, expect, it } from 'vitest';
import { PROMPT_LAYER_IDS } from '../../../shared/ai/turn.ts';
import type { PromptLayerId } from '../../../shared/ai/turn.ts';
import { ApiError } from '../../../shared/api-error.ts';
import { composeMessages, composeSystemInstruction, composeWith, layerHeader, renderSystemPrompt } from './composer.ts';
import type { ComposeInput, LayerBuilders } from './composer.ts';
import { ALL_TOOLS, EMPTY_PROFILE, envelopeFor, supportDesk, session } from './support-desk.fixture.ts';
import { LAYER_BUILDERS } from './layers.ts';
import { resolveDomainPersona } from './persona.ts';

const meta = session('step', 'optimize');
const input: ComposeInput = {
  session: meta,
  persona: resolveDomainPersona({ domainProfile: EMPTY_PROFILE, pkg: supportDesk, workflowId: meta.workflowId }),
  envelope: envelopeFor(meta),
  tools: ALL_TOOLS,
  writePolicy: { allowApply: false, requiresValidation: true, suggestOnly: false },
  languages: { content: 'en', reply: 'en', replySource: 'account' },
};

function composeError(builders: LayerBuilders): ApiError {
  try {
    composeWith(builders, input);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected AI_PROMPT_COMPOSE_ERROR');
}

describe('composeSystemInstruction', () => {
  it('returns the eight layers in the fixed order, whatever order the table lists them in', () => {
    const reversed = Object.fromEntries([...PROMPT_LAYER_IDS].reverse().map((id) => [id, LAYER_BUILDERS[id]])) as LayerBuilders;
    expect(composeWith(reversed, input).map((l) => l.id)).toEqual([...PROMPT_LAYER_IDS]);
    expect(composeSystemInstruction(input).map((l) => [l.id, l.title])).toEqual([
      ['0A', 'Core Identity'],
      ['0B', 'Domain Persona'],
      ['1', 'Global Guardrails'],
      ['2', 'Output Contract'],
      ['3', 'Entry Strategy'],
      ['4', 'Mode Strategy'],
      ['5', 'Context Digest'],
      ['6', 'Apply Policy'],
    ]);
  });

  it.each(PROMPT_LAYER_IDS)('refuses a prompt whose layer %s is missing', (id: PromptLayerId) => {
    const builders: LayerBuilders = { ...LAYER_BUILDERS, [id]: undefined };
    const error = composeError(builders);
    expect(error.code).toBe('AI_PROMPT_COMPOSE_ERROR');
    expect(error.message).toContain(`layer ${id}`);
    expect(error.message).toContain('is missing');
    expect(error.hints?.length).toBeGreaterThan(0);
  });

  it.each(['', '   \n '])('refuses an empty layer (%j)', (blank) => {
    const error = composeError({ ...LAYER_BUILDERS, '3': () => blank });
    expect(error.code).toBe('AI_PROMPT_COMPOSE_ERROR');
    expect(error.message).toContain('layer 3 (Entry Strategy) is empty');
  });

  it('turns a builder that throws into AI_PROMPT_COMPOSE_ERROR', () => {
    const error = composeError({
      ...LAYER_BUILDERS,
      '5': () => {
        throw new Error('boom');
      },
    });
    expect(error.code).toBe('AI_PROMPT_COMPOSE_ERROR');
    expect(error.cause).toBeInstanceOf(Error);
  });
});

describe('composeMessages', () => {
  const layers = composeSystemInstruction(input);

  it('sends one system message with every layer under its header, then the history, then the user', () => {
    const history = [
      { role: 'user' as const, content: 'Earlier question' },
      { role: 'assistant' as const, content: '{"responseType":"chat","assistantSummary":"Earlier answer"}' },
    ];
    const messages = composeMessages({ layers, history, userMessage: 'Tighten the instructions.' });
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    const system = messages[0]!.content as string;
    expect(system).toBe(renderSystemPrompt(layers));
    expect(system.startsWith('## [Layer-0A] Core Identity\n')).toBe(true);
    const headers = [...system.matchAll(/^## \[Layer-([0-9A-B]+)\] /gmu)].map((m) => m[1]);
    expect(headers).toEqual([...PROMPT_LAYER_IDS]);
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'Tighten the instructions.' });
  });

  it('refuses layers out of order or incomplete', () => {
    const swapped = [layers[1]!, layers[0]!, ...layers.slice(2)];
    expect(() => composeMessages({ layers: swapped, history: [], userMessage: 'x' })).toThrow(ApiError);
    expect(() => composeMessages({ layers: layers.slice(1), history: [], userMessage: 'x' })).toThrow(/expected the layers/u);
  });

  it('uses a stable header per layer', () => {
    expect(layerHeader({ id: '0B', title: 'Domain Persona' })).toBe('## [Layer-0B] Domain Persona');
  });
});
