/**
 * Real, imperfect models (issue 14), end to end inside workerd: the real `openai` SDK talks to the
 * scripted server playing the quirks common models have — nulls for optional fields, short object
 * keys, numbers and booleans as strings, double-encoded arguments, a declared impact that
 * disagrees, fenced JSON with trailing commas, claims of success with nothing staged, nonsense on
 * every iteration — and the product gets a correct, reviewable change out of them, or says
 * plainly that it did not.
 */
import { describe, expect, it } from 'vitest';
import type { RecordedChat, ScriptStep } from './scripted-model.ts';
import { STEP, WF, connect, currentStep, stepChangeSet, supportDeskProject, stepSession } from './sessions.ts';
import { finalAnswer, send, toolCall, turnEnd, useScriptedModel } from './turns.ts';
import { guardLogs } from './log-canary.ts';

// Nothing this file's faults make the Worker or the session object log may carry a key, an email or a hash.
guardLogs();

const STEP_KEY = `step:${WF}/${STEP}`;

/** One session on the support-desk test package with a scripted model, and one turn run to its end. */
async function runTurn(steps: ScriptStep[], before?: (s: { owner: any; path: string }) => Promise<void>) {
  const { owner, base } = await supportDeskProject();
  const sessionId = await stepSession(owner, base);
  const path = `${base}/ai/sessions/${sessionId}`;
  const stored = await currentStep(owner, base);
  await before?.({ owner, path });
  const scripted = await useScriptedModel(owner, steps);
  const watcher = await connect(owner, base, sessionId);
  const accepted = await send(owner, path, 'Improve the classify-issue step.');
  expect(accepted.status).toBe(202);
  const end = await turnEnd(watcher, accepted.data.turnId);
  const requests = await scripted.requests();
  watcher.close();
  const events = watcher.events().filter((e) => e.turnId === accepted.data.turnId);
  return { owner, path, stored, end, events, requests };
}

/** The `role=tool` result the model was sent for `toolCallId`. */
function toolResult(requests: RecordedChat[], toolCallId: string): any {
  for (const request of [...requests].reverse()) {
    const message = (request.body as any).messages.find((m: any) => m.role === 'tool' && m.tool_call_id === toolCallId);
    if (message) return JSON.parse(message.content);
  }
  throw new Error(`no tool result for ${toolCallId}`);
}

function improved(markdown: string, line = 'Cite the policy section for every flagged line.') {
  return `${markdown.trimEnd()}\n\n${line}\n`;
}

function stepOperation(markdown: string, extra: Record<string, unknown> = {}) {
  return { op: 'upsert', targetType: 'step', target: { workflowId: WF, nodeId: STEP }, payload: { stepMarkdown: markdown }, ...extra };
}

/** Steps are scripted before the stored step is read, so its text comes from the example package. */
async function storedStepText(): Promise<string> {
  const { owner, base } = await supportDeskProject();
  return (await currentStep(owner, base)).markdown;
}

describe('lenient where the meaning is unambiguous', () => {
  it('stages a change set full of nulls for optional fields, and tells the model what it read', async () => {
    const markdown = improved(await storedStepText());
    const changeSet = {
      schemaVersion: '1.0',
      targetType: 'step',
      mode: 'optimize',
      operations: [stepOperation(markdown, { reason: null, extensions: null })],
      impact: { objects: [STEP_KEY], counts: null, riskFlags: null, requiresConfirmation: null },
      revisions: null,
      extensions: null,
    };
    const turn = await runTurn([{ toolCalls: [toolCall('builder.change.stage', { changeSet, sessionId: null }, 'call_nulls')] }, finalAnswer('Cited the policy.')]);
    const result = toolResult(turn.requests, 'call_nulls');
    expect(result).toMatchObject({ ok: true, data: { status: 'staged', files: [{ key: STEP_KEY, action: 'M' }] } });
    expect(result.meta.notes).toEqual(
      expect.arrayContaining(['read "sessionId": null as not given', 'read "changeSet.revisions": null as not given', 'read "changeSet.operations[0].reason": null as not given']),
    );
    expect(turn.end.type).toBe('turn.finished');
    expect(turn.end.payload).toMatchObject({ responseType: 'change', valid: true, repairs: 0 });
    expect((await turn.owner.get(`${turn.path}/changes`)).data.files).toEqual([expect.objectContaining({ key: STEP_KEY, after: markdown })]);
  });

  it('reads a short key that names one object, and says how it read it', async () => {
    const markdown = improved(await storedStepText());
    const changeSet = { schemaVersion: '1.0', targetType: 'step', mode: 'optimize', operations: [stepOperation(markdown)], impact: { objects: [`step:${STEP}`] } };
    const turn = await runTurn([{ toolCalls: [toolCall('builder.change.stage', { changeSet }, 'call_short')] }, finalAnswer('Cited the policy.')]);
    const result = toolResult(turn.requests, 'call_short');
    expect(result.ok).toBe(true);
    expect(result.meta.notes).toContain(`read step:${STEP} as ${STEP_KEY}`);
    // The interpreted key is what is kept, and it agrees with what was staged: no disagreement note.
    expect(result.meta.notes.some((n: string) => n.startsWith('impact.objects lists'))).toBe(false);
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'change', valid: true } });
  });

  // An outside probe: "nodeId": "step:quick-check" staged a new step file steps/step:quick-check.md
  // beside the target, and the turn finished "valid".
  it.each([
    ['step:<nodeId>', { workflowId: WF, nodeId: `step:${STEP}` }],
    ['step:<workflowId>/<nodeId>', { nodeId: `step:${WF}/${STEP}` }],
    ['workflow:<id> and step:<nodeId>', { workflowId: `workflow:${WF}`, nodeId: `step:${STEP}` }],
  ])('reads target ids written as object keys (%s) as the step they name, never a new one', async (_form, target) => {
    const markdown = improved(await storedStepText());
    const changeSet = { schemaVersion: '1.0', targetType: 'step', mode: 'optimize', operations: [{ ...stepOperation(markdown), target }] };
    const turn = await runTurn([{ toolCalls: [toolCall('builder.change.stage', { changeSet }, 'call_keyed')] }, finalAnswer('Cited the policy.')]);
    const result = toolResult(turn.requests, 'call_keyed');
    expect(result.ok).toBe(true);
    expect(result.meta.notes).toContain(`read operations[0].target.nodeId "${target.nodeId}" as "${STEP}"`);
    const changes = await turn.owner.get(`${turn.path}/changes`);
    expect(changes.data.files.map((f: any) => [f.key, f.action])).toEqual([[STEP_KEY, 'M']]);
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'change', valid: true } });
  });

  it('reads "schemaVersion": 1.0 written as a number as the version "1.0"', async () => {
    const markdown = improved(await storedStepText());
    const changeSet = { schemaVersion: 1.0, targetType: 'step', mode: 'optimize', operations: [stepOperation(markdown)] };
    const turn = await runTurn([{ toolCalls: [toolCall('builder.change.stage', { changeSet }, 'call_number')] }, finalAnswer('Cited the policy.')]);
    const result = toolResult(turn.requests, 'call_number');
    expect(result.ok).toBe(true);
    expect(result.meta.notes).toContain('read "schemaVersion": 1.0 (a number) as "1.0"');
  });

  it('answers an ambiguous short key with the candidates and stages nothing', async () => {
    const stepText = await storedStepText();
    // A person first stages a step with the same node id in the other workflow: step:classify-issue now names two.
    const twin = stepText;
    const changeSet = { schemaVersion: '1.0', targetType: 'step', mode: 'optimize', operations: [stepOperation(improved(stepText))], impact: { objects: [`step:${STEP}`] } };
    const turn = await runTurn(
      [{ toolCalls: [toolCall('builder.change.stage', { changeSet }, 'call_ambiguous')] }, finalAnswer('I could not tell which step you meant.', 'chat')],
      async ({ owner, path }) => {
        const staged = await owner.post(`${path}/stage`, {
          changeSet: {
            schemaVersion: '1.0',
            targetType: 'step',
            mode: 'optimize',
            operations: [{ op: 'upsert', targetType: 'step', target: { workflowId: 'weekly-report', nodeId: STEP }, payload: { stepMarkdown: twin } }],
          },
        });
        expect(staged.status).toBe(200);
      },
    );
    const result = toolResult(turn.requests, 'call_ambiguous');
    expect(result).toMatchObject({ ok: false, error: { code: 'AI_OBJECT_KEY_AMBIGUOUS' } });
    expect(result.error.details[0].message).toBe(`"step:${STEP}" names 2 objects: ${STEP_KEY}, step:weekly-report/${STEP}.`);
    // Nothing of the model's call was staged: the only version is the person's, and classify-issue is unchanged.
    const files = (await turn.owner.get(`${turn.path}/changes`)).data.files;
    expect(files.map((f: any) => f.key)).toEqual([`step:weekly-report/${STEP}`]);
    expect(turn.events.filter((e) => e.type === 'change.staged')).toEqual([]);
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'chat' } });
  });

  it('reads numbers and booleans sent as strings where the contract wants numbers and booleans', async () => {
    const { owner, base } = await supportDeskProject();
    const revision = (await currentStep(owner, base)).revision;
    const markdown = improved(await storedStepText());
    const changeSet = {
      schemaVersion: '1.0',
      targetType: 'step',
      mode: 'optimize',
      operations: [stepOperation(markdown)],
      impact: { objects: [STEP_KEY], counts: { step: '1' }, requiresConfirmation: 'true' },
      revisions: { workflowRevision: String(revision) },
    };
    const turn = await runTurn([
      { toolCalls: [toolCall('builder.step.read', { workflowId: WF, nodeId: STEP, offset: '1', limit: '20' }, 'call_read'), toolCall('builder.change.stage', { changeSet }, 'call_strings')] },
      finalAnswer('Cited the policy.'),
    ]);
    expect(toolResult(turn.requests, 'call_read').ok).toBe(true);
    const result = toolResult(turn.requests, 'call_strings');
    expect(result.ok).toBe(true);
    expect(result.meta.notes).toEqual(
      expect.arrayContaining([
        `read "changeSet.revisions.workflowRevision": "${revision}" as the number ${revision}`,
        'read "changeSet.impact.requiresConfirmation": "true" as true',
        'read "changeSet.impact.counts.step": "1" as the number 1',
      ]),
    );
    const state = (await turn.owner.get(turn.path)).data;
    expect(state.latestSuggestion.changeSet.revisions).toEqual({ workflowRevision: revision });
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'change', valid: true } });
  });

  it('reads arguments encoded twice as a JSON string', async () => {
    const markdown = improved(await storedStepText());
    const changeSet = { schemaVersion: '1.0', targetType: 'step', mode: 'optimize', operations: [stepOperation(markdown)] };
    const turn = await runTurn([
      {
        toolCalls: [
          { name: 'builder_step_read', arguments: JSON.stringify(JSON.stringify({ workflowId: WF, nodeId: STEP })), id: 'call_read' },
          // And the changeSet itself as JSON text inside the arguments.
          { name: 'builder_change_stage', arguments: JSON.stringify(JSON.stringify({ changeSet: JSON.stringify(changeSet) })), id: 'call_stage' },
        ],
      },
      finalAnswer('Cited the policy.'),
    ]);
    const read = toolResult(turn.requests, 'call_read');
    expect(read).toMatchObject({ ok: true, data: { nodeId: STEP } });
    expect(read.meta.notes).toEqual(['read the arguments, sent as a JSON string, as the JSON object inside it']);
    const staged = toolResult(turn.requests, 'call_stage');
    expect(staged).toMatchObject({ ok: true, data: { files: [{ key: STEP_KEY, action: 'M' }] } });
    expect(staged.meta.notes).toContain('read "changeSet", sent as JSON text, as the object inside it');
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'change', valid: true } });
  });

  it('takes a final answer in a markdown fence with trailing commas as it is', async () => {
    const turn = await runTurn([{ content: '```json\n{\n  "responseType": "chat",\n  "assistantSummary": "The step is fine as it is.",\n  "changeSet": null,\n}\n```' }]);
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'chat', summary: 'The step is fine as it is.', repairs: 0 } });
    expect(turn.requests).toHaveLength(1);
  });

  it('reads a final answer whose keys are snake_case and whose changeSet is under change_set, and stages it at once', async () => {
    const markdown = improved(await storedStepText());
    const content = JSON.stringify({ response_type: 'Change', summary: 'Cited the policy.', change_set: stepChangeSet(markdown) });
    const turn = await runTurn([{ content }]);
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'change', summary: 'Cited the policy.', valid: true, repairs: 0 } });
    // No corrective request was needed.
    expect(turn.requests).toHaveLength(1);
    const files = (await turn.owner.get(`${turn.path}/changes`)).data.files as Array<{ key: string; after: string }>;
    expect(files.find((f) => f.key === STEP_KEY)?.after).toBe(markdown);
  });

  it('stages the changeSet of a final answer that comes after reasoning left in the content (<think>…</think>) and a sentence', async () => {
    const markdown = improved(await storedStepText());
    const answer = { responseType: 'change', assistantSummary: 'Cited the policy.', changeSet: stepChangeSet(markdown) };
    const content = `<think>\nThe user wants the policy cited; the step needs {one more line}.\n</think>\n\nHere is the change:\n\`\`\`json\n${JSON.stringify(answer, null, 2)}\n\`\`\``;
    const turn = await runTurn([{ content }]);
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'change', summary: 'Cited the policy.', repairs: 0 } });
    expect(JSON.stringify(turn.end.payload)).not.toContain('<think>');
    const files = (await turn.owner.get(`${turn.path}/changes`)).data.files as Array<{ key: string; after: string }>;
    expect(files.find((f) => f.key === STEP_KEY)?.after).toBe(markdown);
  });
});

describe('the system derives the impact', () => {
  it('stages a change set whose declared impact disagrees, sends the model a note, and shows the derived impact with a cross-object flag', async () => {
    const markdown = improved(await storedStepText(), 'Use assets/policies/line-checklist.md for every line.');
    const changeSet = {
      schemaVersion: '1.0',
      targetType: 'step',
      mode: 'optimize',
      operations: [stepOperation(markdown), { op: 'upsert', targetType: 'asset', target: { path: 'assets/policies/line-checklist.md' }, payload: { content: '# Checklist\n' } }],
      // Claims a step it does not touch, misses the asset, and miscounts.
      impact: { objects: [`step:${WF}/approve-report`], counts: { step: 3 } },
    };
    const turn = await runTurn([{ toolCalls: [toolCall('builder.change.stage', { changeSet }, 'call_stage')] }, finalAnswer('Added a checklist.')]);
    const result = toolResult(turn.requests, 'call_stage');
    expect(result.ok).toBe(true);
    expect(result.meta.notes).toEqual(
      expect.arrayContaining([
        `impact.objects lists step:${WF}/approve-report, which this change set does not change; the system's impact is used instead.`,
        `this change set also changes asset:assets/policies/line-checklist.md, ${STEP_KEY}, which impact.objects does not list; the system's impact includes it.`,
        "impact.counts.step is 3, but this change set changes 1; the system's count is used.",
      ]),
    );
    expect(result.data.impact.counts).toMatchObject({ files: 2, added: 1, modified: 1, deleted: 0 });
    // Outside the target is allowed, flagged for the reviewers, and the version is valid.
    expect(turn.end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'change', valid: true, needsManualFix: false } });
    expect(turn.end.payload.staged).toEqual({
      files: [
        { key: 'asset:assets/policies/line-checklist.md', action: 'A' },
        { key: STEP_KEY, action: 'M' },
      ],
      text: `Staged 2 files: asset:assets/policies/line-checklist.md (added), ${STEP_KEY} (modified).`,
    });
    const changes = (await turn.owner.get(`${turn.path}/changes`)).data;
    expect(changes.impact.objects).toMatchObject({ step: [STEP_KEY], asset: ['asset:assets/policies/line-checklist.md'] });
    expect(changes.impact.references.added).toEqual(['assets/policies/line-checklist.md']);
    expect(changes.impact.references.broken).toEqual([]);
    expect(changes.impact.risks.map((r: any) => [r.flag, r.objectKey])).toEqual([['cross-object', 'asset:assets/policies/line-checklist.md']]);
    const state = (await turn.owner.get(turn.path)).data;
    expect(state.validation.warnings.map((w: any) => w.code)).toContain('AI_CROSS_OBJECT_CHANGE');
  });
});
