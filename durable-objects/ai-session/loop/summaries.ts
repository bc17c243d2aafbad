/**
 * One-line summaries of tool calls for the live events: what a call asks for (as soon as its
 * arguments are known) and what it answered. Short and content-free: names, ids, counts.
 */
import type { ToolEnvelope } from '../../../shared/ai/tool-envelope.ts';
import type { ToolRequestCode, ToolResultCode, ToolWords } from '../../../shared/ai/tool-words.ts';

const MAX_SUMMARY = 160;
/** "3,686": one formatter kept (toLocaleString sets one up per call, ~25× slower in workerd). */
const COUNT = new Intl.NumberFormat('en-US');

function cut(text: string, max = MAX_SUMMARY): string {
  const flat = text.replace(/\s+/gu, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Serialised lengths of results summarised lately: the English summary and the words both tell it. */
const lengths = new WeakMap<object, number>();

function dataChars(data: unknown): number {
  if (typeof data !== 'object' || data === null) return JSON.stringify(data)?.length ?? 0;
  let chars = lengths.get(data);
  if (chars === undefined) {
    chars = JSON.stringify(data)?.length ?? 0;
    lengths.set(data, chars);
  }
  return chars;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

function operationLabel(op: unknown): string {
  if (!isRecord(op)) return '?';
  const target = isRecord(op['target']) ? op['target'] : {};
  const id = str(target['nodeId']) ?? str(target['agentId']) ?? str(target['path']) ?? str(target['workflowId']) ?? '';
  return `${str(op['op']) ?? '?'} ${str(op['targetType']) ?? ''}${id ? ` ${id}` : ''}`.trim();
}

/** "what the call asks for", from its parsed arguments. */
export function argumentsSummary(name: string, args: unknown): string {
  const a = isRecord(args) ? args : {};
  switch (name) {
    case 'builder.context.get':
      return 'the session context';
    case 'builder.workflow.read':
      return `workflow ${str(a['workflowId']) ?? '?'}`;
    case 'builder.step.read':
      return cut(`step ${str(a['workflowId']) ?? '?'}/${str(a['nodeId']) ?? '?'}${a['offset'] ? ` from ${str(a['offset'])}` : ''}`);
    case 'builder.agent.read':
      return `agent ${str(a['agentId']) ?? '?'}`;
    case 'builder.asset.read':
      return cut(`asset ${str(a['path']) ?? '?'}${a['offset'] ? ` from ${str(a['offset'])}` : ''}`);
    case 'builder.refs.find': {
      const locator = isRecord(a['locator']) ? a['locator'] : {};
      return cut(`references of ${str(locator['type']) ?? '?'} ${str(locator['id']) ?? ''}`);
    }
    case 'builder.change.stage': {
      const changeSet = isRecord(a['changeSet']) ? a['changeSet'] : {};
      const ops = Array.isArray(changeSet['operations']) ? changeSet['operations'] : [];
      const legacy = Array.isArray(changeSet['steps']) ? changeSet['steps'].length : 0;
      if (ops.length === 0 && legacy > 0) return `${legacy} step change(s) (legacy shape)`;
      return cut(`${ops.length} operation${ops.length === 1 ? '' : 's'}: ${ops.slice(0, 4).map(operationLabel).join(', ')}${ops.length > 4 ? ', …' : ''}`);
    }
    case 'builder.change.validate':
      return a['changeSetId'] ? `version ${str(a['changeSetId'])}` : 'the latest staged version';
    case 'builder.change.discard':
      return 'everything staged';
    default:
      return cut(
        Object.entries(a)
          .slice(0, 3)
          .map(([k, v]) => `${k}=${str(v) ?? (Array.isArray(v) ? `[${v.length}]` : '{…}')}`)
          .join(', '),
      );
  }
}

/** "what it answered": counts and statuses, never contents. */
export function resultSummary(name: string, result: ToolEnvelope): string {
  if (!result.ok) return cut(`${result.error.code}: ${result.error.message}`);
  const data = isRecord(result.data) ? result.data : {};
  switch (name) {
    case 'builder.change.stage': {
      const files = Array.isArray(data['files']) ? (data['files'] as Array<{ action?: string; key?: string }>) : [];
      return cut(`staged version ${str(data['version']) ?? '?'}: ${files.map((f) => `${f.action ?? '?'} ${f.key ?? '?'}`).join(', ') || 'no file changes'}`);
    }
    case 'builder.change.validate': {
      const errors = Array.isArray(data['errors']) ? data['errors'].length : 0;
      const warnings = Array.isArray(data['warnings']) ? data['warnings'].length : 0;
      return data['valid'] === true ? `valid${warnings ? `, ${warnings} warning(s)` : ''}` : `${errors} error(s), ${warnings} warning(s)`;
    }
    case 'builder.change.discard':
      return 'discarded';
    case 'builder.refs.find': {
      const inbound = Array.isArray(data['inbound']) ? data['inbound'].length : 0;
      const outbound = Array.isArray(data['outbound']) ? data['outbound'].length : 0;
      return `${inbound} inbound, ${outbound} outbound reference(s)`;
    }
    default: {
      const chars = dataChars(result.data);
      return `${COUNT.format(chars)} characters${result.meta.staged ? ' (staged)' : ''}`;
    }
  }
}

/**
 * The same "what the call asks for" as a code and values (shared/ai/tool-words.ts), for viewers
 * reading another language; undefined for a tool whose summary is its raw arguments.
 */
export function argumentsWords(name: string, args: unknown, refused: boolean): ToolWords | undefined {
  if (refused) return { code: 'notRun' satisfies ToolRequestCode, params: {} };
  const a = isRecord(args) ? args : {};
  const words = (code: ToolRequestCode, params: ToolWords['params'] = {}): ToolWords => ({ code, params });
  const offset = str(a['offset']);
  switch (name) {
    case 'builder.context.get':
      return words('sessionContext');
    case 'builder.workflow.read':
      return words('workflow', { workflowId: str(a['workflowId']) ?? '?' });
    case 'builder.step.read': {
      const params = { workflowId: str(a['workflowId']) ?? '?', nodeId: str(a['nodeId']) ?? '?' };
      return a['offset'] && offset ? words('stepFrom', { ...params, offset }) : words('step', params);
    }
    case 'builder.agent.read':
      return words('agent', { agentId: str(a['agentId']) ?? '?' });
    case 'builder.asset.read': {
      const path = cut(str(a['path']) ?? '?');
      return a['offset'] && offset ? words('assetFrom', { path, offset }) : words('asset', { path });
    }
    case 'builder.refs.find': {
      const locator = isRecord(a['locator']) ? a['locator'] : {};
      return words('references', { type: str(locator['type']) ?? '?', id: str(locator['id']) ?? '' });
    }
    case 'builder.change.stage': {
      const changeSet = isRecord(a['changeSet']) ? a['changeSet'] : {};
      const ops = Array.isArray(changeSet['operations']) ? changeSet['operations'] : [];
      const legacy = Array.isArray(changeSet['steps']) ? changeSet['steps'].length : 0;
      if (ops.length === 0 && legacy > 0) return words('legacySteps', { count: legacy });
      // Operation labels (`update step n1`) are the change-set contract's own words, not prose.
      return words('operations', { count: ops.length, list: cut(`${ops.slice(0, 4).map(operationLabel).join(', ')}${ops.length > 4 ? ', …' : ''}`) });
    }
    case 'builder.change.validate':
      return a['changeSetId'] ? words('validateVersion', { version: str(a['changeSetId'])! }) : words('validateLatest');
    case 'builder.change.discard':
      return words('discardAll');
    default:
      return undefined;
  }
}

/** The same "what it answered" as a code and values; a failure names its error code. */
export function resultWords(name: string, result: ToolEnvelope): ToolWords {
  const words = (code: ToolResultCode, params: ToolWords['params'] = {}): ToolWords => ({ code, params });
  if (!result.ok) return words('failed', { code: result.error.code });
  const data = isRecord(result.data) ? result.data : {};
  switch (name) {
    case 'builder.change.stage': {
      const files = Array.isArray(data['files']) ? (data['files'] as Array<{ action?: string; key?: string }>) : [];
      const version = str(data['version']) ?? '?';
      if (files.length === 0) return words('stagedNothing', { version });
      return words('staged', { version, count: files.length, files: cut(files.map((f) => `${f.action ?? '?'} ${f.key ?? '?'}`).join(', ')) });
    }
    case 'builder.change.validate': {
      const errors = Array.isArray(data['errors']) ? data['errors'].length : 0;
      const warnings = Array.isArray(data['warnings']) ? data['warnings'].length : 0;
      return data['valid'] === true ? words('valid', { warnings }) : words('invalid', { errors, warnings });
    }
    case 'builder.change.discard':
      return words('discarded');
    case 'builder.refs.find': {
      const inbound = Array.isArray(data['inbound']) ? data['inbound'].length : 0;
      const outbound = Array.isArray(data['outbound']) ? data['outbound'].length : 0;
      return words('references', { inbound, outbound });
    }
    default: {
      const chars = dataChars(result.data);
      return words(result.meta.staged ? 'charactersStaged' : 'characters', { count: chars });
    }
  }
}
