// The scripted demo model (`scripted-demo`, what `npm start` offers without a key): a small
// deterministic agent. Each request it reads the current turn's tool results and makes the next
// move: builder.context.get → the reads its edit needs → builder.change.stage → builder.change.validate
// → a final answer `{responseType, assistantSummary}` saying what it staged and how validation went.
// "make it shorter" restages a shorter draft (read through the tools, so from the overlay); "undo that"
// discards; quoted review threads get a "Review notes" answer (review-edits.ts). Nothing random, no clock: the same conversation always gets the same answer.

import type { Reply, Scenario, ScenarioRequest } from '../types.ts';
import { agentCreate, agentOptimize } from './agent-edits.ts';
import { assetCreate, assetOptimize } from './asset-edits.ts';
import { currentTurn, instructedLanguage, intentOf, languageOf, stringsIn, type ToolResult, type Turn } from './conversation.ts';
import { NeedCall, Reads, record, stringList, type Edit, type Mode, type Situation, type Target, type TargetType } from './situation.ts';
import { addressThreads, quotedThreads } from './review-edits.ts';
import { stepCreate } from './step-create.ts';
import { stepOptimize } from './step-edits.ts';
import { wording } from './wording.ts';
import { workflowCreate, workflowOptimize } from './workflow-edits.ts';

const STRATEGIES: Record<TargetType, Record<Mode, (s: Situation) => Edit>> = {
  step: { optimize: stepOptimize, create: stepCreate },
  agent: { optimize: agentOptimize, create: agentCreate },
  asset: { optimize: assetOptimize, create: assetCreate },
  workflow: { optimize: workflowOptimize, create: workflowCreate },
};

const MAX_LISTED_ERRORS = 5;

function final(responseType: 'chat' | 'change', summary: string, extra: Record<string, unknown> = {}): Reply {
  return { content: JSON.stringify({ responseType, assistantSummary: summary, ...extra }) };
}

function call(name: string, args: Record<string, unknown>, content?: string): Reply {
  return { ...(content ? { content } : {}), toolCalls: [{ name, arguments: args }] };
}

function errorText(result: ToolResult): string {
  const error = result.envelope?.error;
  const details = (error?.details ?? []).map((d) => record(d)['message']).filter((m): m is string => typeof m === 'string');
  return [error?.message ?? 'The tool failed.', ...details.slice(0, MAX_LISTED_ERRORS)].join(' ');
}

function targetOf(context: Record<string, unknown>): Target {
  const meta = record(context['session_meta']);
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    targetType: (text(meta['targetType']) ?? 'step') as TargetType,
    mode: meta['mode'] === 'create' ? 'create' : 'optimize',
    workflowId: text(meta['workflowId']),
    targetId: text(meta['targetId']),
  };
}

export function changeSetOf(target: Target, edit: Extract<Edit, { kind: 'stage' }>) {
  const counts: Record<string, number> = {};
  const workflows = new Set<string>();
  for (const key of edit.objects) {
    const [kind, rest = ''] = key.split(/:(.*)/su);
    if (kind === 'workflow' || kind === 'graph') workflows.add(rest);
    else counts[kind!] = (counts[kind!] ?? 0) + 1;
  }
  if (workflows.size > 0) counts['workflow'] = workflows.size;
  return {
    schemaVersion: '1.0',
    targetType: target.targetType,
    mode: target.mode,
    operations: edit.operations,
    impact: { objects: edit.objects, counts, requiresConfirmation: true },
  };
}

function validationLine(result: ToolResult): string {
  if (!result.envelope?.ok) return `I could not validate it: ${errorText(result)}`;
  const data = record(result.envelope.data);
  const errors = Array.isArray(data['errors']) ? data['errors'].map(record) : [];
  const warnings = Array.isArray(data['warnings']) ? data['warnings'].length : 0;
  if (data['valid'] === true) return `Validation passed${warnings > 0 ? ` with ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}.`;
  const listed = errors.slice(0, MAX_LISTED_ERRORS).map((e) => `${String(e['code'] ?? '')}: ${String(e['message'] ?? '')}`);
  return `Validation found ${errors.length} error${errors.length === 1 ? '' : 's'} (${listed.join('; ')}). I left the change staged so you can see them; ask me to "undo that" to drop it.`;
}

function languageOfTurn(context: Record<string, unknown>, turn: Turn) {
  const read = turn.results.filter((r) => r.name !== 'builder_context_get' && r.envelope?.ok).map((r) => r.envelope!.data);
  return languageOf(stringsIn([context['target_snapshot'], context['dependency_digest'], ...read]));
}

/** The next move of the demo in this turn. */
export function nextMove({ messages, tools }: Pick<ScenarioRequest, 'messages' | 'tools'>): Reply {
  const offered = new Set(tools.map((t) => t.name));
  const turn = currentTurn(messages);
  if (!offered.has('builder_context_get')) {
    return { content: `This is the scripted demo model. It works on a project through the builder_* tools, and none were offered. You said: "${turn.request}"` };
  }
  if (turn.repairs.length > 0) {
    // The loop asks for a repair of what this turn staged: the demo cannot do better, and says so.
    return final('change', `I could not make the staged change pass validation by myself (${turn.repairs.at(-1)!.split('\n')[0]}). Fix it in the editor, or ask me to "undo that". ${wording('en').demoNote}`);
  }
  const contextResult = turn.results.find((r) => r.name === 'builder_context_get' && r.envelope?.ok);
  if (!contextResult) return call('builder_context_get', {}, turn.results.length === 0 ? 'Let me look at the context first.' : undefined);
  const context = record(contextResult.envelope!.data);
  const target = targetOf(context);
  // The prompt's content language wins, as it would for a model that follows it; else the package's prose decides.
  const lang = instructedLanguage(messages) ?? languageOfTurn(context, turn);
  const w = wording(lang);
  // Review threads quote other people's words: what they say is never the demo's intent ("undo" in a comment discards nothing).
  const threads = quotedThreads(turn.request);
  const intent = threads ? 'edit' : intentOf(turn.request);
  const canStage = offered.has('builder_change_stage');

  if (intent === 'undo' && canStage) {
    const discarded = turn.results.find((r) => r.name === 'builder_change_discard');
    if (!discarded) return call('builder_change_discard', {});
    if (!discarded.envelope?.ok) return final('chat', `I could not discard the staged changes: ${errorText(discarded)} ${w.demoNote}`);
    return final('chat', `Undone: I discarded everything staged in this session, so the project is exactly as stored. ${w.demoNote}`);
  }

  const situation: Situation = { target, context, intent, lang, stagedKeys: stringList(record(context['revision_info'])['stagedKeys']), reads: new Reads(turn.results) };
  let edit: Edit;
  let addressed: string[] = [];
  try {
    if (threads) ({ edit, addressed } = addressThreads(situation.reads, threads));
    else edit = STRATEGIES[target.targetType][target.mode](situation);
  } catch (error) {
    if (error instanceof NeedCall) return call(error.name, error.args);
    throw error;
  }
  if (edit.kind === 'none') return final('chat', `${edit.summary} ${w.demoNote}`);
  if (!canStage) return final('chat', `Suggestion only (nothing staged in a suggest-only turn): ${edit.summary.replace(/^Staged /u, 'I would stage ')} ${w.demoNote}`);

  const staged = turn.results.find((r) => r.name === 'builder_change_stage');
  if (!staged) return call('builder_change_stage', { changeSet: changeSetOf(target, edit) });
  if (!staged.envelope?.ok) return final('chat', `I tried to stage this, but it was refused: ${errorText(staged)} Nothing was staged. ${w.demoNote}`);
  const files = record(staged.envelope.data)['files'];
  if (Array.isArray(files) && files.length === 0) return final('chat', `The change I prepared is identical to what is already there, so nothing changed. ${w.demoNote}`);

  const validated = turn.results.find((r) => r.name === 'builder_change_validate');
  if (!validated) return call('builder_change_validate', {});
  return final('change', `${edit.summary} ${validationLine(validated)} ${w.nextSteps} ${w.demoNote}`, addressed.length > 0 ? { addressedThreads: addressed } : {});
}

export const demo: Scenario = (request) => nextMove(request);
