/**
 * The harness the turn-fault suites share (ai-turn-faults.test.ts, ai-turn-attacks.test.ts): a step
 * session whose owner's scripted model plays the case, a socket watching, the project's state before
 * it, and the checks every faulty turn must pass (one ending event, nothing changed, no key anywhere).
 */
import { expect } from 'vitest';
import type { TestClient } from './client.ts';
import type { ScriptStep, ScriptedModel } from './scripted-model.ts';
import { connect, supportDeskProject, stepSession, tableSnapshot } from './sessions.ts';
import { CANARY_KEY, auditRows, finalAnswer, objectRows, send, turnEnd, useScriptedModel } from './turns.ts';

export const MESSAGE = 'Tighten the receipt checks of this step.';
const ENDINGS = ['turn.finished', 'turn.failed', 'turn.stopped', 'turn.paused'];
export const OK_CHAT = finalAnswer('I read the step; nothing needs to change.', 'chat');

/** A fresh project with a step session, a scripted model as the owner's AI, and a watching socket. */
export async function bench(steps: ScriptStep[]) {
  const project = await supportDeskProject();
  const sessionId = await stepSession(project.owner, project.base);
  const path = `${project.base}/ai/sessions/${sessionId}`;
  const scripted = await useScriptedModel(project.owner, steps);
  const watcher = await connect(project.owner, project.base, sessionId);
  return { ...project, sessionId, path, scripted, watcher, before: await projectState(project.owner, project.projectId, project.base, path) };
}
export type Bench = Awaited<ReturnType<typeof bench>>;

/** What a turn must never change: the stored package, its history and the session's staged changes. */
export async function projectState(client: TestClient, projectId: string, base: string, path: string) {
  return {
    tables: await tableSnapshot(projectId),
    history: (await client.get(`${base}/history`)).data,
    changes: (await client.get(`${path}/changes`)).data,
  };
}

/** Send the message and wait for the turn's ending event; returns the turn's events so far. */
export async function runTurn(b: Bench, content = MESSAGE, timeoutMs = 15_000) {
  const accepted = await send(b.owner, b.path, content);
  expect(accepted.status, JSON.stringify(accepted.error)).toBe(202);
  const turnId = accepted.data.turnId as string;
  const end = await turnEnd(b.watcher, turnId, timeoutMs);
  return { turnId, end, events: () => b.watcher.events().filter((e) => e.turnId === turnId) };
}
export type Turn = Awaited<ReturnType<typeof runTurn>>;

/** The key, or a long piece of it, is nowhere a person, a log or the model could read it. */
async function expectNoKey(b: Bench, extra: unknown[] = []) {
  const stored = JSON.stringify([
    b.watcher.events(),
    (await b.owner.get(b.path)).data,
    await auditRows(b.projectId),
    await objectRows(b.sessionId, 'SELECT * FROM messages'),
    await objectRows(b.sessionId, 'SELECT * FROM turns'),
    await objectRows(b.sessionId, 'SELECT * FROM tool_runs'),
    (await b.scripted.requests()).map((r) => r.body),
    ...extra,
  ]);
  expect(stored).not.toContain(CANARY_KEY);
  expect(stored).not.toContain(CANARY_KEY.slice(10));
}

/** One ending event, last of its turn; the project and the overlay unchanged; the message kept; no key. */
export async function expectIntact(b: Bench, turn: Turn, content = MESSAGE) {
  expect(await projectState(b.owner, b.projectId, b.base, b.path)).toEqual(b.before);
  const state = (await b.owner.get(b.path)).data;
  expect(state.messages.items).toContainEqual(expect.objectContaining({ role: 'user', content }));
  await expectNoKey(b);
  const events = turn.events();
  expect(events.filter((e) => ENDINGS.includes(e.type))).toEqual([turn.end]);
  expect(events.at(-1)).toEqual(turn.end);
  expect(events[0].type).toBe('turn.accepted');
  b.watcher.close();
}

export function expectFailed(turn: Turn, code: string) {
  expect(turn.end.type, JSON.stringify(turn.end.payload)).toBe('turn.failed');
  expect(turn.end.payload.code).toBe(code);
  expect(turn.end.payload.message).toEqual(expect.any(String));
  expect(turn.end.payload.hints.length).toBeGreaterThan(0);
}

export async function bodies(scripted: ScriptedModel): Promise<any[]> {
  return (await scripted.requests()).map((r) => r.body);
}

/** The role=tool message answering the first tool call of the assistant message in `body`. */
export function toolResultIn(body: any): { toolCallId: string; envelope: any } {
  const assistant = body.messages.findLast((m: any) => m.role === 'assistant' && m.tool_calls?.length);
  const toolCallId = assistant.tool_calls[0].id as string;
  const message = body.messages.find((m: any) => m.role === 'tool' && m.tool_call_id === toolCallId);
  return { toolCallId, envelope: JSON.parse(message.content) };
}
