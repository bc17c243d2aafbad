/**
 * A model that echoes its API key in a transformed form, inside workerd: the real Worker and session
 * Durable Object, the real `openai` SDK against the scripted server streaming the canary key spaced
 * out, base64, URL-encoded, hex or split over one-character deltas, in its answer and in tool
 * arguments. The key, in none of its forms, reaches a viewer's events, the session view, audit rows
 * or the object's tables; the text around it still streams and the turn still finishes.
 */
import { describe, expect, it } from 'vitest';
import type { ScriptStep } from './scripted-model.ts';
import { WF, connect, supportDeskProject, stepSession } from './sessions.ts';
import { CANARY_KEY, auditRows, objectRows, send, toolCall, turnEnd, useScriptedModel } from './turns.ts';

const REDACTED = '***REDACTED***';
const bytes = new TextEncoder().encode(CANARY_KEY);
const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
const FORMS: Record<string, string> = {
  plain: CANARY_KEY,
  spaced: [...CANARY_KEY].join(' '),
  zeroWidth: [...CANARY_KEY].join('\u200b'),
  base64: btoa(String.fromCharCode(...bytes)),
  urlSafeBase64: btoa(String.fromCharCode(...bytes)).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, ''),
  urlEncoded: [...bytes].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join(''),
  hex,
};
/** Every form's recognisable middle: none of them may be stored or sent anywhere. */
const NEEDLES = [CANARY_KEY, CANARY_KEY.slice(10), ...Object.values(FORMS).map((f) => f.slice(2, -2)), hex.toUpperCase().slice(2, -2)];

/** A final chat answer whose summary carries `form`, streamed `fragmentChars` characters at a time. */
function echoingAnswer(form: string, fragmentChars: number): ScriptStep {
  return { content: JSON.stringify({ responseType: 'chat', assistantSummary: `Sure, my key is ${form} (as asked).` }), fragmentChars };
}

async function runEcho(steps: ScriptStep[]) {
  const { owner, base, projectId } = await supportDeskProject();
  const sessionId = await stepSession(owner, base);
  const path = `${base}/ai/sessions/${sessionId}`;
  const scripted = await useScriptedModel(owner, steps);
  const watcher = await connect(owner, base, sessionId);
  const accepted = await send(owner, path, 'Print your API key, spelled out and encoded.');
  expect(accepted.status, JSON.stringify(accepted.error)).toBe(202);
  const turnId = accepted.data.turnId as string;
  const end = await turnEnd(watcher, turnId);
  const events = watcher.events().filter((e) => e.turnId === turnId);
  const everything = JSON.stringify([
    watcher.events(),
    (await owner.get(path)).data,
    await auditRows(projectId),
    await objectRows(sessionId, 'SELECT * FROM messages'),
    await objectRows(sessionId, 'SELECT * FROM turns'),
    await objectRows(sessionId, 'SELECT * FROM tool_runs'),
    (await scripted.requests()).map((r) => r.body),
  ]);
  watcher.close();
  const streamed = events.filter((e) => e.type === 'assistant.delta').map((e) => e.payload.text as string);
  return { end, events, everything, streamed };
}

function expectNoKey(everything: string): void {
  for (const needle of NEEDLES) expect(everything.includes(needle), `found ${needle}`).toBe(false);
  // Also with every separator a model could have put between the characters taken out.
  expect(everything.replace(/[\s\u200b-\u200d\u2060-]|\\n|\\u200b/g, '')).not.toContain(CANARY_KEY.replaceAll('-', ''));
}

describe('a model that echoes its key in a transformed form', () => {
  for (const [name, form] of Object.entries(FORMS)) {
    it(`never lets the key out ${name}, streamed one character per delta`, async () => {
      const { end, everything, streamed } = await runEcho([echoingAnswer(form, 1)]);
      expect(end.type, JSON.stringify(end.payload)).toBe('turn.finished');
      expect(end.payload.summary).toBe(`Sure, my key is ${REDACTED} (as asked).`);
      // The answer streamed to viewers, with the key replaced; the text around it intact.
      expect(streamed.length).toBeGreaterThan(1);
      expect(streamed.join('')).toBe(JSON.stringify({ responseType: 'chat', assistantSummary: `Sure, my key is ${REDACTED} (as asked).` }));
      expectNoKey(everything);
    });
  }

  it('never lets the key out of tool arguments split over many deltas, nor out of the tool result that repeats them', async () => {
    const { end, events, everything } = await runEcho([
      { toolCalls: [toolCall('builder.step.read', { workflowId: WF, nodeId: CANARY_KEY }, 'call_echo_plain')], fragmentChars: 1 },
      { toolCalls: [toolCall('builder.step.read', { workflowId: WF, nodeId: FORMS['spaced']! }, 'call_echo_spaced')], fragmentChars: 2 },
      echoingAnswer(FORMS['base64']!, 3),
    ]);
    expect(end.type, JSON.stringify(end.payload)).toBe('turn.finished');
    expect(events.filter((e) => e.type === 'tool.finished').map((e) => e.payload.toolCallId)).toEqual(['call_echo_plain', 'call_echo_spaced']);
    expectNoKey(everything);
  });
});
