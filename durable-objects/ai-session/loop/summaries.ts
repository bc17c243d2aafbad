/**
 * One-line summaries of tool calls for the live events: what a call asks for (as soon as its
 * arguments are known) and what it answered. Short and content-free: names, ids, counts. Each is
 * built as words (a key and parameters, shared/ai/tool-words.ts) that viewers' apps put in their
 * own language, and as the English `summary` the event also carries (older apps, logs, presence).
 */
import type { ToolEnvelope } from '../../../shared/ai/tool-envelope.ts';
import type { ToolWordKey, ToolWords } from '../../../shared/ai/tool-words.ts';

const MAX_SUMMARY = 160;
/** A list inside a summary (operations, files) is cut shorter, so the sentence around it fits too. */
const MAX_LIST = 120;

function cut(text: string, max = MAX_SUMMARY): string {
  const flat = text.replace(/\s+/gu, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

function count(value: unknown): number {
  return Array.isArray(value) ? value.length : 0;
}

function operationLabel(op: unknown): string {
  if (!isRecord(op)) return '?';
  const target = isRecord(op['target']) ? op['target'] : {};
  const id = str(target['nodeId']) ?? str(target['agentId']) ?? str(target['path']) ?? str(target['workflowId']) ?? '';
  return `${str(op['op']) ?? '?'} ${str(op['targetType']) ?? ''}${id ? ` ${id}` : ''}`.trim();
}

type Values = ToolWords['values'];
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The English of each key; the app's catalogue (`toolWords.*`) has the same sentences in every language. */
const ENGLISH: Record<ToolWordKey, (v: Values) => string> = {
  context: () => 'the session context',
  workflow: (v) => `workflow ${v['workflowId']}`,
  step: (v) => `step ${v['workflowId']}/${v['nodeId']}`,
  stepFrom: (v) => `step ${v['workflowId']}/${v['nodeId']} from ${v['offset']}`,
  agent: (v) => `agent ${v['agentId']}`,
  asset: (v) => `asset ${v['path']}`,
  assetFrom: (v) => `asset ${v['path']} from ${v['offset']}`,
  references: (v) => `references of ${v['type']} ${v['id']}`,
  operations: (v) => `${plural(Number(v['count']), 'operation')}: ${v['list']}`,
  legacySteps: (v) => `${v['count']} step change(s) (legacy shape)`,
  version: (v) => `version ${v['version']}`,
  latestVersion: () => 'the latest staged version',
  everything: () => 'everything staged',
  notRun: () => 'not run',
  staged: (v) => `staged version ${v['version']}: ${v['files']}`,
  stagedNothing: (v) => `staged version ${v['version']}: no file changes`,
  valid: () => 'valid',
  validWithWarnings: (v) => `valid, ${v['warnings']} warning(s)`,
  invalid: (v) => `${v['errors']} error(s), ${v['warnings']} warning(s)`,
  discarded: () => 'discarded',
  referencesFound: (v) => `${v['inbound']} inbound, ${v['outbound']} outbound reference(s)`,
  characters: (v) => `${Number(v['count']).toLocaleString('en-US')} characters`,
  charactersStaged: (v) => `${Number(v['count']).toLocaleString('en-US')} characters (staged)`,
  failed: (v) => `${v['code']}: ${v['message']}`,
};

/** The English summary of some words. */
export function englishSummary(words: ToolWords): string {
  return cut(ENGLISH[words.key](words.values));
}

const words = (key: ToolWordKey, values: Values = {}): ToolWords => ({ key, values });

/** "what the call asks for" as words, from its parsed arguments; undefined for a tool without its own words. */
export function argumentsWords(name: string, args: unknown): ToolWords | undefined {
  const a = isRecord(args) ? args : {};
  const offset = a['offset'] ? str(a['offset']) : undefined;
  switch (name) {
    case 'builder.context.get':
      return words('context');
    case 'builder.workflow.read':
      return words('workflow', { workflowId: str(a['workflowId']) ?? '?' });
    case 'builder.step.read': {
      const values = { workflowId: str(a['workflowId']) ?? '?', nodeId: str(a['nodeId']) ?? '?' };
      return offset ? words('stepFrom', { ...values, offset }) : words('step', values);
    }
    case 'builder.agent.read':
      return words('agent', { agentId: str(a['agentId']) ?? '?' });
    case 'builder.asset.read': {
      const path = str(a['path']) ?? '?';
      return offset ? words('assetFrom', { path, offset }) : words('asset', { path });
    }
    case 'builder.refs.find': {
      const locator = isRecord(a['locator']) ? a['locator'] : {};
      return words('references', { type: str(locator['type']) ?? '?', id: str(locator['id']) ?? '' });
    }
    case 'builder.change.stage': {
      const changeSet = isRecord(a['changeSet']) ? a['changeSet'] : {};
      const ops = Array.isArray(changeSet['operations']) ? changeSet['operations'] : [];
      const legacy = count(changeSet['steps']);
      if (ops.length === 0 && legacy > 0) return words('legacySteps', { count: legacy });
      const list = `${ops.slice(0, 4).map(operationLabel).join(', ')}${ops.length > 4 ? ', …' : ''}`;
      return words('operations', { count: ops.length, list: cut(list, MAX_LIST) });
    }
    case 'builder.change.validate':
      return a['changeSetId'] ? words('version', { version: str(a['changeSetId']) ?? '?' }) : words('latestVersion');
    case 'builder.change.discard':
      return words('everything');
    default:
      return undefined;
  }
}

/** "what the call asks for", from its parsed arguments. */
export function argumentsSummary(name: string, args: unknown): string {
  const known = argumentsWords(name, args);
  if (known) return englishSummary(known);
  const a = isRecord(args) ? args : {};
  return cut(
    Object.entries(a)
      .slice(0, 3)
      .map(([k, v]) => `${k}=${str(v) ?? (Array.isArray(v) ? `[${v.length}]` : '{…}')}`)
      .join(', '),
  );
}

/** "what it answered" as words: counts and statuses, never contents. */
export function resultWords(name: string, result: ToolEnvelope): ToolWords {
  if (!result.ok) return words('failed', { code: result.error.code, message: result.error.message });
  const data = isRecord(result.data) ? result.data : {};
  switch (name) {
    case 'builder.change.stage': {
      const files = Array.isArray(data['files']) ? (data['files'] as Array<{ action?: string; key?: string }>) : [];
      const version = str(data['version']) ?? '?';
      if (files.length === 0) return words('stagedNothing', { version });
      return words('staged', { version, files: cut(files.map((f) => `${f.action ?? '?'} ${f.key ?? '?'}`).join(', '), MAX_LIST) });
    }
    case 'builder.change.validate': {
      const warnings = count(data['warnings']);
      if (data['valid'] === true) return warnings ? words('validWithWarnings', { warnings }) : words('valid');
      return words('invalid', { errors: count(data['errors']), warnings });
    }
    case 'builder.change.discard':
      return words('discarded');
    case 'builder.refs.find':
      return words('referencesFound', { inbound: count(data['inbound']), outbound: count(data['outbound']) });
    default: {
      const chars = JSON.stringify(result.data)?.length ?? 0;
      return words(result.meta.staged ? 'charactersStaged' : 'characters', { count: chars });
    }
  }
}

/** "what it answered": counts and statuses, never contents. */
export function resultSummary(name: string, result: ToolEnvelope): string {
  return englishSummary(resultWords(name, result));
}
