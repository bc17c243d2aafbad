/**
 * The semantic diff of agents: per agent (matched by id) added, removed or changed, with its
 * changed fields as paths (`persona.role`, `tools.fs.enabled`). Takes either a whole agents.json
 * (`{agents: [...]}`) or one agent object, which is how the session stages an `agent:<id>` key.
 */
import { parseJsonSide } from './parse.ts';
import type { AgentDiff, AgentsDiffResult, Unparsable } from './types.ts';
import { diffValues } from './values.ts';

type Obj = Record<string, unknown>;

function isRecord(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readAgents(text: string): { ok: true; agents: Map<string, Obj> } | { ok: false; error: string } {
  const parsed = parseJsonSide(text, 'agents.json');
  if (!parsed.ok) return parsed;
  const value = parsed.value;
  const list = isRecord(value) && Array.isArray(value.agents) ? value.agents : isRecord(value) ? [value] : null;
  if (!list) return { ok: false, error: 'The agent text is not a JSON object.' };
  const agents = new Map<string, Obj>();
  for (const [i, agent] of list.entries()) {
    if (!isRecord(agent)) return { ok: false, error: `Agent ${i + 1} is not a JSON object.` };
    agents.set(typeof agent.id === 'string' ? agent.id : `(agent ${i + 1})`, agent);
  }
  return { ok: true, agents };
}

export function diffAgents(beforeText: string | null, afterText: string | null): AgentsDiffResult | Unparsable {
  const before = beforeText === null ? { ok: true as const, agents: new Map<string, Obj>() } : readAgents(beforeText);
  if (!before.ok) return { kind: 'unparsable', side: 'before', error: before.error };
  const after = afterText === null ? { ok: true as const, agents: new Map<string, Obj>() } : readAgents(afterText);
  if (!after.ok) return { kind: 'unparsable', side: 'after', error: after.error };
  const agents: AgentDiff[] = [];
  for (const [id, next] of after.agents) {
    const prev = before.agents.get(id);
    if (!prev) agents.push({ id, status: 'added', fields: diffValues({}, next) });
    else {
      const fields = diffValues(prev, next);
      if (fields.length > 0) agents.push({ id, status: 'changed', fields });
    }
  }
  for (const [id, prev] of before.agents) {
    if (!after.agents.has(id)) agents.push({ id, status: 'removed', fields: diffValues(prev, {}) });
  }
  return { kind: 'agents', agents, changed: agents.length > 0 };
}
