/**
 * The provider presets' connection values — base URL, model, the demo's key — without their words,
 * for a page that needs a preset's model but not the AI settings' words (the Workbench's demo
 * badge); `llm-presets.ts` gives each its label, description and key hint.
 */
import type { LlmPreset } from '../../shared/api/index.ts';

export interface LlmPresetModel {
  id: LlmPreset;
  baseUrl: string;
  model: string;
  /** Filled into an empty key field: only the offline demo model, whose key is no secret. */
  demoKey?: string;
}

/** The port `npm start` gives the scripted model server (scripts/start.ts: PORT + 1). */
const DEMO_MODEL_URL = 'http://127.0.0.1:8788/v1';

export const LLM_PRESET_MODELS: readonly LlmPresetModel[] = [
  {
    id: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    model: 'gpt-4o-mini',
  },
  {
    id: 'deepseek',
    baseUrl: 'https://api.deepseek.com/v1',
    model: 'deepseek-chat',
  },
  {
    id: 'openrouter',
    baseUrl: 'https://openrouter.ai/api/v1',
    model: 'openai/gpt-4o-mini',
  },
  {
    id: 'local',
    baseUrl: 'http://localhost:11434/v1',
    model: 'llama3.1',
  },
  {
    id: 'custom',
    baseUrl: '',
    model: '',
  },
  {
    id: 'scripted-demo',
    baseUrl: DEMO_MODEL_URL,
    model: 'scripted-demo',
    demoKey: 'sk-local-demo-key',
  },
];

/** The model the offline scripted demo answers as (what a profile using it reports). */
export const DEMO_MODEL = LLM_PRESET_MODELS.find((preset) => preset.id === 'scripted-demo')!.model;
