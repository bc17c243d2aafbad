/**
 * Tool arguments as real models send them (GPT-4o-mini, DeepSeek, Qwen on vLLM, Llama on Ollama,
 * llama.cpp), through a full AI turn inside workerd with the real `openai` SDK and the scripted
 * server: null, "null" and "" for optional fields, numbers and booleans written as text, a locator or a
 * target written as its object key, a null workflowId in a project with one workflow; the reads and
 * the stage still happen. A truly wrong argument gets a refusal naming the field, and the turn goes on.
 */
import { describe, expect, it } from 'vitest';
import type { RecordedChat, ScriptStep } from './scripted-model.ts';
import { STEP, WF, connect, currentStep, importExample, stepSession, supportDeskProject } from './sessions.ts';
import { signedInClient, type TestClient } from './client.ts';
import { finalAnswer, send, toolCall, turnEnd, useScriptedModel } from './turns.ts';

async function runTurn(owner: TestClient, base: string, sessionId: string, steps: ScriptStep[]) {
  const path = `${base}/ai/sessions/${sessionId}`;
  const scripted = await useScriptedModel(owner, steps);
  const watcher = await connect(owner, base, sessionId);
  const accepted = await send(owner, path, 'Improve the step.');
  expect(accepted.status).toBe(202);
  const end = await turnEnd(watcher, accepted.data.turnId, 25_000);
  watcher.close();
  const events = watcher.events().filter((e) => e.turnId === accepted.data.turnId);
  const finished = events.filter((e) => e.type === 'tool.finished').map((e) => [e.payload.toolCallId, e.payload.ok, e.payload.code ?? null]);
  return { path, end, events, finished, requests: await scripted.requests() };
}

function toolResult(requests: RecordedChat[], toolCallId: string): any {
  for (const request of [...requests].reverse()) {
    const message = (request.body as any).messages.find((m: any) => m.role === 'tool' && m.tool_call_id === toolCallId);
    if (message) return JSON.parse(message.content);
  }
  throw new Error(`no tool result for ${toolCallId}`);
}

describe('tool arguments as real models send them', () => {
  it('reads blanks, numbers and booleans as text and keys for objects; a wrong field is named and the model corrects it', async () => {
    const { owner, base } = await supportDeskProject();
    const sessionId = await stepSession(owner, base);
    const markdown = `${(await currentStep(owner, base)).markdown.trimEnd()}\n\nCite the policy section.\n`;
    const changeSet = {
      schemaVersion: '1.0',
      targetType: 'step',
      mode: 'optimize',
      operations: [{ op: 'upsert', targetType: 'step', target: `step:${STEP}`, payload: { stepMarkdown: markdown }, reason: null }],
      impact: { objects: [`step:${STEP}`], requiresConfirmation: 'true', riskFlags: 'null' },
      revisions: '',
    };
    const turn = await runTurn(owner, base, sessionId, [
      {
        toolCalls: [
          toolCall('builder.step.read', { workflowId: WF, nodeId: STEP, limit: '20', offset: 'null', projectId: '' }, 'call_read'),
          toolCall('builder.refs.find', { locator: `step:${STEP}`, projectId: null }, 'call_refs'),
          toolCall('builder.context.get', { sessionId: '' }, 'call_context'),
        ],
      },
      { toolCalls: [toolCall('builder.change.stage', { sessionId: 'null', changeSet }, 'call_stage')] },
      { toolCalls: [toolCall('builder.change.validate', { changeSetId: 'null' }, 'call_validate')] },
      { toolCalls: [toolCall('builder.step.read', { workflowId: WF, nodeId: STEP, limit: 'all' }, 'call_wrong')] },
      { toolCalls: [toolCall('builder.step.read', { workflowId: WF, nodeId: STEP, limit: 40 }, 'call_fixed')] },
      finalAnswer('Added a line citing the policy section.'),
    ]);

    expect(turn.end.type, JSON.stringify(turn.end.payload)).toBe('turn.finished');
    expect(turn.end.payload).toMatchObject({ responseType: 'change', valid: true });
    expect(turn.finished).toEqual([
      ['call_read', true, null],
      ['call_refs', true, null],
      ['call_context', true, null],
      ['call_stage', true, null],
      ['call_validate', true, null],
      ['call_wrong', false, 'AI_TOOL_ARGUMENTS_INVALID'],
      ['call_fixed', true, null],
    ]);
    const read = toolResult(turn.requests, 'call_read');
    expect(read.data.markdown).toHaveLength(20);
    expect(read.meta.notes).toEqual(expect.arrayContaining(['read "limit": "20" as the number 20', 'read "offset": "null" as not given']));
    expect(toolResult(turn.requests, 'call_refs').data.locator).toEqual({ type: 'step', id: STEP, workflowId: WF });
    const staged = toolResult(turn.requests, 'call_stage');
    expect(staged.meta.notes).toEqual(expect.arrayContaining([`read operations[0].target "step:${STEP}" as {"workflowId":"${WF}","nodeId":"${STEP}"}`]));
    expect(JSON.stringify((await owner.get(`${turn.path}/changes`)).data)).toContain('Cite the policy section.');

    // The refusal says which field is wrong and what it wants, and is not a "tool failed".
    const wrong = toolResult(turn.requests, 'call_wrong');
    expect(wrong.error.code).toBe('AI_TOOL_ARGUMENTS_INVALID');
    expect(wrong.error.message).toContain('"limit" is "all": Invalid input: expected number, received string. The field: Most characters to return');
    expect(wrong.error.details).toEqual([{ path: 'limit', message: expect.stringContaining('"limit" is "all"') }]);
    expect(toolResult(turn.requests, 'call_fixed').data.markdown).toHaveLength(40);
  });

  it('reads a null workflowId as the only workflow of a one-workflow project, in reads and in a staged target', async () => {
    const owner = await signedInClient('Owner');
    const projectId = await importExample(owner, 'branching');
    const base = `/api/projects/${projectId}`;
    const created = await owner.post(`${base}/ai/sessions`, { workflowId: 'main', targetType: 'step', targetId: 'collect-background', mode: 'optimize' });
    expect(created.status).toBe(201);
    const stored = (await owner.get(`${base}/workflows/main/steps/collect-background`)).data.step.markdown as string;
    const changeSet = {
      schemaVersion: '1.0',
      targetType: 'step',
      mode: 'optimize',
      operations: [{ op: 'upsert', targetType: 'step', target: { workflowId: null, nodeId: 'collect-background' }, payload: { stepMarkdown: `${stored.trimEnd()}\n\nAsk for the last course taken.\n` } }],
    };
    const turn = await runTurn(owner, base, created.data.sessionId, [
      { toolCalls: [toolCall('builder.step.read', { workflowId: null, nodeId: 'choose-track' }, 'call_read'), toolCall('builder.workflow.read', { workflowId: '' }, 'call_workflow')] },
      { toolCalls: [toolCall('builder.change.stage', { changeSet }, 'call_stage')] },
      finalAnswer('Added a question about the last course taken.'),
    ]);
    expect(turn.end.type, JSON.stringify(turn.end.payload)).toBe('turn.finished');
    expect(turn.finished).toEqual([
      ['call_read', true, null],
      ['call_workflow', true, null],
      ['call_stage', true, null],
    ]);
    const read = toolResult(turn.requests, 'call_read');
    expect(read.data).toMatchObject({ workflowId: 'main', nodeId: 'choose-track' });
    expect(read.meta.notes).toContain('read "workflowId": null as "main", the project\'s only workflow');
    expect(JSON.stringify((await owner.get(`${turn.path}/changes`)).data)).toContain('Ask for the last course taken.');
  });
});
