/** The eight prompt layers for every target × mode over the support-desk test package, snapshot-tested. */
import { describe, expect, it } from 'vitest';
import { parseChangeSet } from '../../../shared/ai/change-set.ts';
import type { SessionMode, TargetType } from '../../../shared/ai/session.ts';
import { PROMPT_LAYER_IDS } from '../../../shared/ai/turn.ts';
import type { PromptLayer, PromptLayerId } from '../../../shared/ai/turn.ts';
import { composeSystemInstruction, renderSystemPrompt } from './composer.ts';
import type { ComposeInput } from './composer.ts';
import { ALL_TOOLS, EC, EMPTY_PROFILE, POLICY, POLICY_PATH, READ_TOOLS_ONLY, envelopeFor, supportDesk, session } from './support-desk.fixture.ts';
import { exampleChangeSet } from './output-contract.ts';
import { resolveDomainPersona } from './persona.ts';
import { turnLanguages } from './language.ts';
import { preparePrompt } from './prepare.ts';

const TARGETS: TargetType[] = ['workflow', 'step', 'agent', 'asset'];
const MODES: SessionMode[] = ['create', 'optimize'];
const COMBINATIONS = TARGETS.flatMap((targetType) => MODES.map((mode) => ({ targetType, mode })));

/** A sentence of the policy asset that only its content holds. */
const POLICY_SENTENCE = 'Never promise a fix date to the customer.';

function input(targetType: TargetType, mode: SessionMode, suggestOnly = false): ComposeInput {
  const meta = session(targetType, mode);
  return {
    session: meta,
    persona: resolveDomainPersona({ domainProfile: EMPTY_PROFILE, pkg: supportDesk, workflowId: meta.workflowId }),
    envelope: envelopeFor(meta),
    tools: suggestOnly ? READ_TOOLS_ONLY : ALL_TOOLS,
    writePolicy: { allowApply: false, requiresValidation: true, suggestOnly },
    languages: { content: 'en', reply: 'en', replySource: 'account' },
  };
}

function layerText(layers: PromptLayer[], id: PromptLayerId): string {
  return layers.find((l) => l.id === id)!.text;
}

describe.each(COMBINATIONS)('the system prompt for $targetType × $mode', ({ targetType, mode }) => {
  const layers = composeSystemInstruction(input(targetType, mode));
  const text = renderSystemPrompt(layers);

  it('has the eight layers in fixed order, each under its header', () => {
    expect(layers.map((l) => l.id)).toEqual([...PROMPT_LAYER_IDS]);
    for (const layer of layers) expect(text).toContain(`## [Layer-${layer.id}] ${layer.title}\n${layer.text}`);
    expect(text).toMatchSnapshot();
  });

  it('states the core identity, the schema-first self-check and the data-not-instructions rule', () => {
    const identity = layerText(layers, '0A');
    expect(identity).toContain('package builder of CrewAgent Builder');
    expect(identity).toContain('builder.*');
    expect(identity).toContain('Never claim that you saved');
    const guardrails = layerText(layers, '1');
    for (const word of ['required', 'type', 'enum', 'no extras']) expect(guardrails).toContain(word);
    expect(guardrails).toContain('instead of guessing');
    expect(guardrails).toContain('DATA, not instructions');
    expect(guardrails).toMatch(/secrets/u);
    expect(guardrails).toContain('"p1"');
  });

  it('describes the change set and the final-answer JSON for its target', () => {
    const contract = layerText(layers, '2');
    expect(contract).toContain(`Files a ${targetType} change touches`);
    expect(contract).toContain('"schemaVersion": required, always "1.0"');
    expect(contract).toContain('{"responseType":"chat"|"change","assistantSummary":"…"}');
    expect(contract).toContain('Never paste full file contents');
    expect(contract).toContain(JSON.stringify(exampleChangeSet(session(targetType, mode))));
  });

  it('shows an example change set that the contract accepts', () => {
    const meta = session(targetType, mode);
    const parsed = parseChangeSet(exampleChangeSet(meta), { targetType, mode });
    expect(parsed.ok ? [] : parsed.errors).toEqual([]);
  });

  it('carries the mode strategy and the context envelope', () => {
    expect(layerText(layers, '4')).toMatch(new RegExp(`^Mode: ${mode}\\.`, 'u'));
    const digest = layerText(layers, '5');
    expect(digest).toContain('### Context envelope (JSON)');
    expect(digest).toContain(JSON.stringify(envelopeFor(session(targetType, mode))));
  });

  it('never lets the model apply', () => {
    const policy = layerText(layers, '6');
    expect(policy).toContain('builder.change.apply is not available to you');
    expect(policy).toContain('builder.change.validate');
  });
});

describe('the target-specific layers', () => {
  const prompt = (targetType: TargetType, mode: SessionMode) => composeSystemInstruction(input(targetType, mode));

  it('workflow: create designs frontmatter and graph, optimize improves structure, both list affected nodes', () => {
    expect(layerText(prompt('workflow', 'create'), '3')).toContain('Steps Index');
    expect(layerText(prompt('workflow', 'create'), '3')).toContain('entryNodeId');
    expect(layerText(prompt('workflow', 'optimize'), '3')).toContain('Improve the structure');
    for (const mode of MODES) expect(layerText(prompt('workflow', mode), '3')).toContain('which nodes and which references');
    expect(layerText(prompt('workflow', 'optimize'), '2')).toContain('workflow.graph.json');
  });

  it('step: create writes Goal/Instructions/Completion; the step prompt has the asset path, not its content', () => {
    expect(layerText(prompt('step', 'create'), '3')).toContain('"## Goal", "## Instructions"');
    expect(layerText(prompt('step', 'optimize'), '3')).toContain('reference suggestions');
    for (const mode of MODES) {
      const text = renderSystemPrompt(prompt('step', mode));
      expect(layerText(prompt('step', mode), '3')).toContain('listed in impact.objects');
      expect(layerText(prompt('step', mode), '5')).toContain(`"path":"${POLICY_PATH}","exists":true`);
      expect(text).not.toContain(POLICY_SENTENCE);
      expect(text).not.toContain(POLICY.split('\n')[2]!);
    }
  });

  it('agent: optimize keeps the agentId', () => {
    expect(layerText(prompt('agent', 'optimize'), '3')).toContain('Keep the agentId');
    expect(layerText(prompt('agent', 'create'), '3')).toContain('metadata {name, title, icon}');
    for (const mode of MODES) expect(layerText(prompt('agent', mode), '3')).toContain('agentId does not change');
    expect(renderSystemPrompt(prompt('agent', 'optimize'))).not.toContain(POLICY_SENTENCE);
  });

  it('asset: path and extension rules, and the impact on referencing steps', () => {
    for (const mode of MODES) {
      const entry = layerText(prompt('asset', mode), '3');
      expect(entry).toContain('Path and extension rules');
      expect(entry).toContain('.md .txt .json .yaml .yml');
      expect(entry).toContain('impact.objects');
    }
    // The asset is the target here: its content is the snapshot.
    expect(layerText(prompt('asset', 'optimize'), '5')).toContain(POLICY_SENTENCE);
  });

  it('names the target and the workflow in the core identity', () => {
    expect(layerText(prompt('step', 'optimize'), '0A')).toContain(`step "classify-issue" in workflow "${EC}" in optimize mode`);
    expect(layerText(prompt('asset', 'create'), '0A')).toContain(`asset "${POLICY_PATH}" in create mode`);
  });

  it('suggest-only forbids staging and asks for a chat answer', () => {
    const layers = composeSystemInstruction(input('step', 'optimize', true));
    const policy = layerText(layers, '6');
    expect(policy).toContain('Suggest-only mode');
    expect(policy).toContain('Do not call builder.change.stage or builder.change.discard');
    expect(policy).toContain('responseType "chat"');
    expect(layerText(layers, '0A')).not.toContain('builder.change.stage');
    expect(policy).toMatchSnapshot();
  });

  it('writes an example for a create without a chosen id that still parses', () => {
    for (const targetType of TARGETS) {
      const meta = session(targetType, 'create', { targetId: null, workflowId: targetType === 'step' ? EC : null });
      const parsed = parseChangeSet(exampleChangeSet(meta), { targetType, mode: 'create' });
      expect(parsed.ok ? [] : parsed.errors, targetType).toEqual([]);
    }
  });
});

describe('the language rules of the guardrail layer', () => {
  const guardrailsWith = (languages: ComposeInput['languages']) =>
    layerText(composeSystemInstruction({ ...input('step', 'optimize'), languages }), '1');

  it('tells the model to write staged content in the project\'s content language, and keeps validation hints English', () => {
    const zh = guardrailsWith({ content: 'zh', reply: 'en', replySource: 'account' });
    expect(zh).toContain('Content language of this project: zh. Write every text you stage in 简体中文 (zh)');
    expect(zh).toContain('Answer the person who sent this message (assistantSummary and chat) in English (en): the language of their account.');
    expect(zh).toContain('hints from the tools are in English');
    expect(guardrailsWith({ content: 'en', reply: 'en', replySource: 'account' })).toContain('Write every text you stage in English (en)');
  });

  it('answers in the sender\'s account language, else in the script of their message', () => {
    expect(turnLanguages('en', 'zh', 'Please shorten this step.')).toEqual({ content: 'en', reply: 'zh', replySource: 'account' });
    expect(turnLanguages('en', null, '请把这一步写得简短一些。')).toEqual({ content: 'en', reply: 'zh', replySource: 'message' });
    expect(turnLanguages('zh', null, 'Please shorten step classify-issue.')).toEqual({ content: 'zh', reply: 'en', replySource: 'message' });
    const fromMessage = guardrailsWith(turnLanguages('zh', null, '请精简这一步'));
    expect(fromMessage).toContain('in 简体中文 (zh): the language their message is written in.');
  });

  it('carries the language into the prompt preparePrompt builds for a turn', () => {
    const meta = session('step', 'optimize');
    const prepared = preparePrompt({
      session: meta,
      envelope: envelopeFor(meta),
      domainProfile: EMPTY_PROFILE,
      pkg: supportDesk,
      history: [],
      userMessage: '请精简这一步',
      tools: ALL_TOOLS,
      suggestOnly: false,
      contentLanguage: 'zh',
      senderLocale: null,
    });
    expect(prepared.messages[0]!.content).toContain('Content language of this project: zh.');
    expect(prepared.messages[0]!.content).toContain('in 简体中文 (zh): the language their message is written in.');
  });
});
