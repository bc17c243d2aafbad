/** The provider presets of the AI settings page: labels that pre-fill base URL and model. */
import type { LlmPreset } from '../../shared/api/index.ts';
import { t } from './i18n/i18n.svelte.ts';

/** What the provider choice offers: a preset, or turning AI off. */
export type LlmChoice = LlmPreset | 'off';

export interface LlmPresetOption {
  id: LlmPreset;
  label: string;
  description: string;
  baseUrl: string;
  model: string;
  /** Shown under the key field. */
  keyHint: string;
  /** Filled into an empty key field: only the offline demo model, whose key is no secret. */
  demoKey?: string;
}

/** The port `npm start` gives the scripted model server (scripts/start.ts: PORT + 1). */
const DEMO_MODEL_URL = 'http://127.0.0.1:8788/v1';

/** A preset's words come from the catalogue, read when shown so they follow the language. */
function preset(option: Omit<LlmPresetOption, 'label' | 'description' | 'keyHint'>): LlmPresetOption {
  return {
    ...option,
    get label() {
      return t(`llm.presets.${option.id}.label`);
    },
    get description() {
      return t(`llm.presets.${option.id}.description`);
    },
    get keyHint() {
      return t(`llm.presets.${option.id}.keyHint`);
    },
  };
}

export const LLM_PRESET_OPTIONS: readonly LlmPresetOption[] = [
  preset({
    id: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    model: 'gpt-4o-mini',
  }),
  preset({
    id: 'deepseek',
    baseUrl: 'https://api.deepseek.com/v1',
    model: 'deepseek-chat',
  }),
  preset({
    id: 'openrouter',
    baseUrl: 'https://openrouter.ai/api/v1',
    model: 'openai/gpt-4o-mini',
  }),
  preset({
    id: 'local',
    baseUrl: 'http://localhost:11434/v1',
    model: 'llama3.1',
  }),
  preset({
    id: 'custom',
    baseUrl: '',
    model: '',
  }),
  preset({
    id: 'scripted-demo',
    baseUrl: DEMO_MODEL_URL,
    model: 'scripted-demo',
    demoKey: 'sk-local-demo-key',
  }),
];

export function presetOption(id: LlmPreset | null): LlmPresetOption | undefined {
  return LLM_PRESET_OPTIONS.find((option) => option.id === id);
}

