// The demo model on agents: refine an agent's persona (same agentId), shorten it, or create a new
// quality-reviewer agent modelled on an existing one (its module copied).

import type { Lang } from './conversation.ts';
import { draftKey, record, stringList, uniqueId, type Edit, type Situation } from './situation.ts';
import { wording } from './wording.ts';

export const NEW_AGENT_ID = 'quality-reviewer';

type Agent = Record<string, unknown>;

function firstSentence(text: string): string {
  const match = /^(.+?[.!?。！？])(\s|$)/u.exec(text.trim());
  return match ? match[1]! : text.trim();
}

/** The persona with a clearer communication style and one more principle; null when both are already there. */
export function refinePersona(agent: Agent, lang: Lang): Agent | null {
  const w = wording(lang).persona;
  const persona = record(agent['persona']);
  const style = typeof persona['communication_style'] === 'string' ? (persona['communication_style'] as string) : '';
  const principles = Array.isArray(persona['principles']) ? stringList(persona['principles']) : typeof persona['principles'] === 'string' ? [persona['principles'] as string] : [];
  const hasStyle = style.includes(w.style);
  const hasPrinciple = principles.includes(w.principle);
  if (hasStyle && hasPrinciple) return null;
  const nextStyle = hasStyle ? style : `${style.trim()}${style.trim() ? ' ' : ''}${w.style}`;
  return {
    ...agent,
    persona: { ...persona, communication_style: nextStyle, principles: hasPrinciple ? principles : [...principles, w.principle] },
  };
}

/** The persona cut down: first sentences of identity and style, at most three principles, two critical actions; null when that changes nothing. */
export function shortenAgent(agent: Agent): Agent | null {
  const persona = record(agent['persona']);
  const next: Record<string, unknown> = { ...persona };
  for (const key of ['identity', 'communication_style', 'role']) if (typeof persona[key] === 'string') next[key] = firstSentence(persona[key] as string);
  const principles = stringList(persona['principles']);
  if (principles.length > 1) next['principles'] = principles.slice(0, Math.min(3, principles.length - 1));
  const shorter: Agent = { ...agent, persona: next };
  const actions = stringList(agent['critical_actions']);
  if (actions.length > 2) shorter['critical_actions'] = actions.slice(0, 2);
  return JSON.stringify(shorter).length < JSON.stringify(agent).length ? shorter : null;
}

export function newAgent(agentId: string, lang: Lang, module: unknown): Agent {
  const w = wording(lang).newAgent;
  return {
    id: agentId,
    metadata: { name: w.name, title: w.title, icon: '🔎', ...(typeof module === 'string' ? { module } : {}), description: w.description },
    persona: { role: w.role, identity: w.identity, communication_style: w.style, principles: w.principles },
    critical_actions: w.actions,
  };
}

function agentUpsert(agentId: string, agent: Agent, reason: string) {
  return { op: 'upsert', targetType: 'agent', target: { agentId }, payload: { agent: { ...agent, id: agentId } }, reason };
}

function readAgent(s: Situation, agentId: string): Agent | string {
  const read = s.reads.read('builder_agent_read', { agentId });
  if (!read.ok) return `I could not read agent "${agentId}": ${read.message}`;
  const agent = record(read.data['agent']);
  return Object.keys(agent).length > 0 ? agent : `Agent "${agentId}" is not a JSON object I can edit.`;
}

function shortenEdit(s: Situation, agentId: string): Edit {
  const agent = readAgent(s, agentId);
  if (typeof agent === 'string') return { kind: 'none', summary: agent };
  const shorter = shortenAgent(agent);
  if (!shorter) return { kind: 'none', summary: `Agent "${agentId}" is already as short as I can make it.` };
  return {
    kind: 'stage',
    operations: [agentUpsert(agentId, shorter, 'A shorter persona.')],
    objects: [`agent:${agentId}`],
    summary: `Staged a shorter version of agent "${agentId}": identity and communication style cut to one sentence each, fewer principles; the agentId is unchanged.`,
  };
}

export function agentOptimize(s: Situation): Edit {
  const agentId = s.target.targetId!;
  if (s.intent === 'shorter') return shortenEdit(s, agentId);
  const agent = readAgent(s, agentId);
  if (typeof agent === 'string') return { kind: 'none', summary: agent };
  const refined = refinePersona(agent, s.lang);
  if (!refined) return { kind: 'none', summary: `Agent "${agentId}" already has the refined persona, so I staged nothing. Ask me to "make it shorter" or "undo that".` };
  return {
    kind: 'stage',
    operations: [agentUpsert(agentId, refined, 'A clearer communication style and one more principle.')],
    objects: [`agent:${agentId}`],
    summary: `Staged a refined persona for agent "${agentId}": a clearer communication style and one more principle; its agentId, metadata and everything else are unchanged.`,
  };
}

export function agentCreate(s: Situation): Edit {
  const own = s.target.targetId;
  if (s.intent === 'shorter') {
    const key = draftKey(s, 'agent', (id) => (own ? id === own : new RegExp(`^${NEW_AGENT_ID}(-\\d+)?$`, 'u').test(id)));
    if (key) return shortenEdit(s, key.slice('agent:'.length));
  }
  const existing = stringList(record(s.context['dependency_digest'])['agentIds']);
  const agentId = own ?? uniqueId(NEW_AGENT_ID, existing);
  // Modelled on the first agent of the package: the new one joins its module.
  let module: unknown;
  if (existing[0] !== undefined) {
    const model = readAgent(s, existing[0]);
    if (typeof model !== 'string') module = record(model['metadata'])['module'];
  }
  const agent = newAgent(agentId, s.lang, module);
  const title = String(record(agent['metadata'])['title']);
  return {
    kind: 'stage',
    operations: [agentUpsert(agentId, agent, 'A reviewer agent the workflows can use before a hand-off.')],
    objects: [`agent:${agentId}`],
    summary: `Staged a new agent "${agentId}" (${title}) in agents.json, with a persona, principles and one critical action.`,
  };
}
