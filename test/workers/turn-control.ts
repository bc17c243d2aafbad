/**
 * The harness the turn-control suites share (ai-turn-control.test.ts, ai-turn-spending.test.ts): a
 * step session whose owner's scripted model plays queued replies in order, a socket watching, and
 * small readers of the turn's events, conversation and audit rows.
 */
import type { TestClient } from './client.ts';
import type { ScriptStep, ScriptedModel } from './scripted-model.ts';
import { STEP, WF, connect, supportDeskProject, stepChangeSet, stepSession, type Watcher } from './sessions.ts';
import { auditRows, finalAnswer, send, toolCall, turnEnd, useScriptedModel, waitFor } from './turns.ts';

export const STEP_KEY = `step:${WF}/${STEP}`;

/**
 * A model call that stays in flight longer than the test timeout (30 s): only a stop (or cancel) ends
 * it, so a turn that ends, or a model request that closes, while it is held was stopped — no clock needed.
 */
export const HELD: ScriptStep = { reply: finalAnswer('never sent', 'chat'), delayMs: 60_000 };

export const readContext = (id = 'call_ctx') => ({ toolCalls: [toolCall('builder.context.get', {}, id)] });
export const stage = (markdown: string, id: string) => ({ toolCalls: [toolCall('builder.change.stage', { changeSet: stepChangeSet(markdown) }, id)] });

/** `client`'s AI plays `replies` in this order, whatever the conversation holds. */
export async function modelPlaying(client: TestClient, replies: ScriptStep[]): Promise<ScriptedModel> {
  const scripted = await useScriptedModel(client, []);
  for (const reply of replies) await scripted.queue(reply);
  return scripted;
}

/** A step session on `project`, the owner's scripted model and a socket watching as the owner. */
export async function withSession(project: Awaited<ReturnType<typeof supportDeskProject>>, replies: ScriptStep[], sessionExtra: Record<string, unknown> = {}) {
  const sessionId = await stepSession(project.owner, project.base, sessionExtra);
  const path = `${project.base}/ai/sessions/${sessionId}`;
  const scripted = await modelPlaying(project.owner, replies);
  const watcher = await connect(project.owner, project.base, sessionId);
  return { ...project, sessionId, path, scripted, watcher };
}

/** The same on a fresh support-desk project. */
export async function turnSetup(replies: ScriptStep[], sessionExtra: Record<string, unknown> = {}) {
  return withSession(await supportDeskProject(), replies, sessionExtra);
}

export async function startTurn(client: TestClient, path: string, content: string, extra: Record<string, unknown> = {}): Promise<string> {
  const accepted = await send(client, path, content, extra);
  if (accepted.status !== 202) throw new Error(`message refused: ${accepted.status} ${JSON.stringify(accepted.error)}`);
  return accepted.data.turnId as string;
}

/** Send a message and wait for the turn's ending event. */
export async function runTurn(client: TestClient, path: string, watcher: Watcher, content: string, extra: Record<string, unknown> = {}) {
  return turnEnd(watcher, await startTurn(client, path, content, extra));
}

export function inFlight(scripted: ScriptedModel, count = 1): Promise<true> {
  return waitFor(async () => (await scripted.pending()) === count, `${count} model request(s) in flight`);
}

export async function conversation(client: TestClient, path: string): Promise<Array<[string, string]>> {
  return (await client.get(path)).data.messages.items.map((m: { role: string; content: string }) => [m.role, m.content]);
}

export function turnEvents(watcher: Watcher, turnId: string, type?: string): any[] {
  return watcher.events().filter((e) => e.turnId === turnId && (type === undefined || e.type === type));
}

export async function auditTypes(projectId: string): Promise<string[]> {
  return (await auditRows(projectId)).map((r) => r.event_type);
}
