/**
 * The agent form's model (components/AgentEditor.svelte): a new agent's template, the text fields
 * it shows over agents.json's schema, and copy-on-write reads and writes at a path of the draft.
 */
import type { MessageKey } from './i18n/catalogue.ts';
import './i18n/agent-words.ts';

export type Json = Record<string, unknown>;

/** What a new agent starts from. */
export const AGENT_TEMPLATE: Json = {
  id: '',
  metadata: { name: '', title: '', icon: '🤖' },
  persona: { role: '', identity: '', communication_style: '', principles: [] },
};

export interface TextField {
  path: [string] | [string, string];
  label: MessageKey;
  rows?: number;
  optional?: boolean;
  hint?: MessageKey;
}

export const METADATA_FIELDS: TextField[] = [
  { path: ['metadata', 'name'], label: 'agents.name', hint: 'agents.nameHint' },
  { path: ['metadata', 'title'], label: 'agents.agentTitle', hint: 'agents.titleHint' },
  { path: ['metadata', 'icon'], label: 'agents.icon', hint: 'agents.iconHint' },
  { path: ['metadata', 'description'], label: 'agents.description', rows: 2, optional: true },
];

export const PERSONA_FIELDS: TextField[] = [
  { path: ['persona', 'role'], label: 'agents.role', hint: 'agents.roleHint' },
  { path: ['persona', 'identity'], label: 'agents.identity', rows: 2, hint: 'agents.identityHint' },
  { path: ['persona', 'communication_style'], label: 'agents.style', rows: 2, hint: 'agents.styleHint' },
];

/** The JSON view's text of a value (2-space, a final newline, as agents.json is written). */
export const prettyJson = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

export const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export function getIn(object: Json, path: readonly string[]): unknown {
  let current: unknown = object;
  for (const key of path) current = isRecord(current) ? current[key] : undefined;
  return current;
}

/** A copy of `object` with `path` set (or removed when `value` is undefined). */
export function setIn(object: Json, path: readonly string[], value: unknown): Json {
  const [key, ...rest] = path;
  if (key === undefined) return object;
  const copy: Json = { ...object };
  if (rest.length === 0) {
    if (value === undefined) delete copy[key];
    else copy[key] = value;
  } else {
    copy[key] = setIn(isRecord(copy[key]) ? copy[key] : {}, rest, value);
  }
  return copy;
}

/** The principles list as the textarea shows it, one per line. */
export const principlesToText = (value: unknown): string => (Array.isArray(value) ? value.map(String).join('\n') : typeof value === 'string' ? value : '');
