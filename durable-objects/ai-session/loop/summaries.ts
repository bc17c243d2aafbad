/**
 * One-line summaries of tool calls for the live events: what a call asks for (as soon as its
 * arguments are known) and what it answered. Short and content-free: names, ids, counts.
 */
import type { ToolEnvelope } from '../../../shared/ai/tool-envelope.ts';

const MAX_SUMMARY = 160;

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
      const chars = JSON.stringify(result.data)?.length ?? 0;
      return `${chars.toLocaleString('en-US')} characters${result.meta.staged ? ' (staged)' : ''}`;
    }
  }
}
