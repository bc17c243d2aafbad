/**
 * The AI turn (seed 002 §3.5, seed 004 §3 and §7): one user message → a streamed chat completion
 * with the builder.* tools → each tool call validated and run exactly once, its result appended
 * as a `role=tool` message → again, until the model answers without tool calls. A staged change
 * is then validated, with at most two repairs. Every step is an event; the state is checkpointed
 * (turn-store.ts) after every model response and every tool run, so a restarted object resumes
 * the turn from the alarm (watchdog) without repeating a finished tool call, or ends it with an
 * explicit event. Stop aborts the provider request at once.
 */
import { ApiError } from '../../../worker/http/api-error.ts';
import { newId } from '../../../worker/ids.ts';
import type { Db } from '../../../worker/db/client.ts';
import type { EffectiveLlmProfile, EffectiveProfileResult } from '../../../worker/llm/effective-profile.ts';
import type { ChatProvider } from '../../../worker/llm/provider.ts';
import type { AssembledToolCall, AssistantMessage, ChatMessage, ProviderProfile } from '../../../worker/llm/types.ts';
import { atLeast } from '../../../shared/api/common.ts';
import type { MessageAccepted, MessageInput } from '../../../shared/api/ai-sessions.ts';
import type { ErrorCode } from '../../../shared/errors.ts';
import { userActor, type NewEvent, type SessionEvent } from '../../../shared/ai/events.ts';
import { MAX_LOOP_ITERATIONS, MAX_REPAIRS, type Usage } from '../../../shared/ai/turn.ts';
import { estimateCostUsd, type PriceTable } from '../../../shared/ai/pricing.ts';
import type { ChangeValidation } from '../../../shared/ai/validation-result.ts';
import type { ToolError } from '../../../shared/ai/tool-envelope.ts';
import type { Actor, SessionCore } from '../session.ts';
import { buildContextEnvelope } from '../tools/context-envelope.ts';
import { preparePrompt } from '../prompt/prepare.ts';
import { estimateTokens, fitToolMessages } from '../prompt/budget.ts';
import { AuditBuffer } from './audit-buffer.ts';
import type { AuditOutbox } from './audit-outbox.ts';
import { DeltaCoalescer } from './delta-coalescer.ts';
import { parseFinalAnswer } from './final-answer.ts';
import { nothingStaged } from './honest-ending.ts';
import { readToolCall, runToolCall, storedAssistantMessage } from './tool-calls.ts';
import { endTurn, type Ending } from './turn-endings.ts';
import { offeredToolNames, offeredTools } from './offered-tools.ts';
import type { TurnRecord } from './turn-store.ts';
import { logError } from '../../../shared/errors-report.ts';

/** A turn resumed this many times after restarts and still interrupted ends as failed. */
export const MAX_RESUMES = 3;
/** One corrective request when the final answer cannot be used, then AI_BAD_RESPONSE. */
const MAX_FORMAT_RETRIES = 1;
/** How long stop waits for the loop to wind down before answering (the abort itself is immediate). */
const STOP_WAIT_MS = 5_000;

export interface TurnDeps {
  core: SessionCore;
  db: Db;
  /** The session's durable audit outbox (audit-outbox.ts). */
  audit: AuditOutbox;
  emit: (event: NewEvent) => SessionEvent;
  resolveProfile: (userId: string) => Promise<EffectiveProfileResult>;
  createProvider: (profile: ProviderProfile) => ChatProvider;
  /** Model prices for the cost estimate of each call (LLM_PRICES_JSON over the defaults). */
  prices: () => PriceTable;
  /** Arm the watchdog alarm (keeps the object awake; resumes an orphaned turn after a restart). */
  armWatchdog: () => void;
  disarmWatchdog: () => void;
}

interface ActiveTurn {
  turnId: string;
  controller: AbortController;
  stoppedBy: Actor | null;
  done: Promise<void>;
}

class TurnEnded extends Error {
  readonly ending: Ending;
  constructor(ending: Ending) {
    super(ending.kind);
    this.ending = ending;
  }
}

function fail(code: ErrorCode, message: string, hints: string[] = []): never {
  throw new TurnEnded({ kind: 'failed', code, message, hints });
}

function providerProfile(profile: EffectiveLlmProfile): ProviderProfile {
  return {
    baseUrl: profile.baseUrl,
    model: profile.model,
    apiKey: profile.apiKey,
    timeoutSeconds: profile.timeoutSeconds,
    ...(profile.contextWindow ? { contextWindow: profile.contextWindow } : {}),
  };
}

function repairRequest(title: string, lines: string[]): ChatMessage {
  return { role: 'user', content: [`REPAIR_REQUEST: ${title}`, ...lines].join('\n') };
}

export class TurnRunner {
  readonly #deps: TurnDeps;
  #active: ActiveTurn | null = null;

  constructor(deps: TurnDeps) {
    this.#deps = deps;
  }

  /** The turn this instance is running now, if any. */
  get activeTurnId(): string | null {
    return this.#active?.turnId ?? null;
  }

  /** Settles when this instance's run of `turnId` ends; null when it is not running that turn (turn-wait.ts). */
  runOf(turnId: string): Promise<void> | null {
    return this.#active?.turnId === turnId ? this.#active.done : null;
  }

  // ---------------------------------------------------------------- commands

  /** A user message: accepted (and the turn started) or refused before anything is stored. */
  async accept(actor: Actor, input: MessageInput): Promise<MessageAccepted> {
    const { core } = this.#deps;
    this.#checkCanSend(actor);
    const profile = await this.#deps.resolveProfile(actor.userId);
    if (profile.type === 'unavailable') throw new ApiError(profile.code, { message: profile.message, hints: profile.hints });
    // Checked again after the await: a second message may have been accepted meanwhile.
    this.#checkCanSend(actor);
    const turnId = newId('turn');
    const suggestOnly = input.suggestOnly ?? false;
    const accepted = this.#deps.emit({ type: 'turn.accepted', actor: userActor(actor), turnId, payload: { content: input.content, suggestOnly } });
    core.turns.create({ id: turnId, userId: actor.userId, userName: actor.name, userRole: actor.role, content: input.content, suggestOnly, acceptedSeq: accepted.seq, now: Date.now() });
    const audit = this.#audit(profile.profile);
    audit.add({ type: 'ai.message.sent', userId: actor.userId, payload: { turnId, chars: input.content.length, suggestOnly } });
    this.#deps.armWatchdog();
    this.#start(turnId, profile.profile, audit);
    return { turnId, seq: accepted.seq, status: 'running' };
  }

  #checkCanSend(actor: Actor): void {
    const { core } = this.#deps;
    if (!core.meta) throw new ApiError('AI_SESSION_NOT_FOUND');
    if (core.status !== 'active') throw new ApiError('AI_SESSION_CLOSED');
    if (!atLeast(actor.role, 'editor')) {
      throw new ApiError('FORBIDDEN', { message: `Sending messages to the AI needs the editor role; you are a ${actor.role}.` });
    }
    const open = core.turns.open();
    if (open) {
      throw new ApiError('AI_TURN_IN_PROGRESS', {
        extra: { turnId: open.id, turnStatus: open.status },
        hints:
          open.status === 'paused'
            ? ['The previous turn is paused by the token budget: raise the budget and resume it, or stop it.']
            : ['Wait for the answer, or stop the AI and send your message again.'],
      });
    }
    if (core.applying) throw new ApiError('AI_SESSION_BUSY');
    const budget = core.turns.tokenBudget();
    if (budget !== null && core.turns.sessionUsage().totalTokens >= budget) {
      throw new ApiError('AI_TOKEN_BUDGET_EXCEEDED', { hints: ['Raise the session token budget to continue.'], extra: { tokenBudget: budget } });
    }
  }

  /** Stop the open turn (editors, or the session's creator). Resolves once the turn has ended. */
  async stop(actor: Actor): Promise<{ turnId: string; status: 'stopped' }> {
    const { core } = this.#deps;
    const turn = core.turns.open();
    if (!turn) throw new ApiError('AI_TURN_NOT_RUNNING');
    if (!atLeast(actor.role, 'editor') && actor.userId !== core.meta?.createdBy) {
      throw new ApiError('FORBIDDEN', { message: 'Only editors and the person who started this session can stop the AI.' });
    }
    const active = this.#active;
    if (active && active.turnId === turn.id) {
      active.stoppedBy ??= actor;
      active.controller.abort();
      await Promise.race([active.done, new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS))]);
    } else {
      // Paused, or orphaned by a restart and not resumed yet: end it here.
      const audit = this.#audit(null);
      endTurn(this.#deps, turn, { kind: 'stopped', by: actor }, audit);
      await audit.flush();
    }
    return { turnId: turn.id, status: 'stopped' };
  }

  /** Continue a turn the token budget paused, once the budget allows it. */
  async resume(actor: Actor): Promise<{ turnId: string; status: 'running' }> {
    const { core } = this.#deps;
    const turn = core.turns.open();
    if (!turn || turn.status !== 'paused') throw new ApiError('AI_TURN_NOT_RUNNING', { message: 'There is no paused turn to resume.' });
    if (!atLeast(actor.role, 'editor')) throw new ApiError('FORBIDDEN', { message: 'Resuming the AI needs the editor role.' });
    this.#checkBudget(turn, true);
    const profile = await this.#deps.resolveProfile(turn.userId);
    if (profile.type === 'unavailable') throw new ApiError(profile.code, { message: profile.message, hints: profile.hints });
    // Checked again after the await: a second resume (or a stop) may have come in meanwhile.
    if (this.#active || core.turns.open()?.status !== 'paused') throw new ApiError('AI_TURN_NOT_RUNNING', { message: 'There is no paused turn to resume.' });
    core.turns.update(turn.id, { status: 'running' });
    this.#deps.emit({ type: 'turn.resumed', actor: userActor(actor), turnId: turn.id, payload: { reason: 'budget', iteration: turn.iteration } });
    this.#deps.armWatchdog();
    this.#start(turn.id, profile.profile, this.#audit(profile.profile));
    return { turnId: turn.id, status: 'running' };
  }

  /**
   * The watchdog alarm: while this instance runs the turn, keep the alarm armed; when a running
   * turn has no runner (the object restarted), resume it from its checkpoint or end it.
   */
  async watchdog(): Promise<void> {
    const { core } = this.#deps;
    const turn = core.turns.open();
    if (!turn || turn.status !== 'running') return;
    if (this.#active) {
      this.#deps.armWatchdog();
      return;
    }
    const audit = this.#audit(null);
    if (turn.resumes >= MAX_RESUMES) {
      endTurn(this.#deps, turn, { kind: 'failed', code: 'AI_TURN_INTERRUPTED', message: 'The AI was interrupted by server restarts too many times.', hints: ['Send your message again.'] }, audit);
      await audit.flush();
      return;
    }
    const profile = await this.#deps.resolveProfile(turn.userId);
    if (profile.type === 'unavailable') {
      endTurn(this.#deps, turn, { kind: 'failed', code: profile.code, message: profile.message, hints: profile.hints }, audit);
      await audit.flush();
      return;
    }
    if (this.#active || core.turns.open()?.id !== turn.id) return;
    core.turns.update(turn.id, { resumes: turn.resumes + 1 });
    this.#deps.emit({ type: 'turn.resumed', actor: { kind: 'system' }, turnId: turn.id, payload: { reason: 'restart', iteration: turn.iteration } });
    this.#deps.armWatchdog();
    this.#start(turn.id, profile.profile, this.#audit(profile.profile));
  }

  // ---------------------------------------------------------------- the loop

  #audit(profile: EffectiveLlmProfile | null): AuditBuffer {
    const meta = this.#deps.core.meta!;
    return new AuditBuffer(this.#deps.audit, meta, profile?.apiKey ? [profile.apiKey] : []);
  }

  #start(turnId: string, profile: EffectiveLlmProfile, audit: AuditBuffer): void {
    const controller = new AbortController();
    const active: ActiveTurn = { turnId, controller, stoppedBy: null, done: Promise.resolve() };
    this.#active = active;
    active.done = this.#run(active, profile, audit).finally(() => {
      // A newer turn may already be running (accepted while this one flushed its audit): its watchdog stays.
      if (this.#active !== active) return;
      this.#active = null;
      this.#deps.disarmWatchdog();
    });
  }

  async #run(active: ActiveTurn, profile: EffectiveLlmProfile, audit: AuditBuffer): Promise<void> {
    const { core } = this.#deps;
    // Let the caller's answer (the 202 of POST …/messages) go out before the prompt is prepared.
    await new Promise((resolve) => setTimeout(resolve, 0));
    let ending: Ending;
    try {
      ending = await this.#loop(active, profile, audit);
    } catch (error) {
      if (error instanceof TurnEnded) ending = error.ending;
      else if (error instanceof ApiError) ending = { kind: 'failed', code: error.code, message: error.message, hints: error.hints ?? [] };
      else {
        logError('ai session: turn failed unexpectedly', error, { turnId: active.turnId });
        ending = { kind: 'failed', code: 'INTERNAL_ERROR', message: 'The AI turn failed on our side; nothing was applied.', hints: ['Send your message again.'] };
      }
    }
    if (active.stoppedBy && ending.kind !== 'stopped' && ending.kind !== 'finished') ending = { kind: 'stopped', by: active.stoppedBy };
    const turn = core.turns.get(active.turnId);
    if (turn && (turn.status === 'running' || turn.status === 'paused')) endTurn(this.#deps, turn, ending, audit);
    await audit.flush();
  }

  #checkBudget(turn: TurnRecord, throwApiError = false): void {
    const budget = this.#deps.core.turns.tokenBudget();
    if (budget === null) return;
    if (this.#deps.core.turns.sessionUsage().totalTokens < budget) return;
    if (throwApiError) {
      throw new ApiError('AI_TOKEN_BUDGET_EXCEEDED', { hints: ['Raise the session token budget, then resume.'], extra: { tokenBudget: budget, turnId: turn.id } });
    }
    throw new TurnEnded({ kind: 'paused', tokenBudget: budget });
  }

  async #loop(active: ActiveTurn, profile: EffectiveLlmProfile, audit: AuditBuffer): Promise<Ending> {
    const { core } = this.#deps;
    const meta = core.meta!;
    const turnId = active.turnId;
    let turn = core.turns.get(turnId)!;
    const provider = this.#deps.createProvider(providerProfile(profile));
    const tools = offeredTools(turn.suggestOnly);
    const offered = new Set<string>(offeredToolNames(turn.suggestOnly));
    // The tool definitions travel with every request: their tokens come out of the context budget.
    const toolTokens = estimateTokens(JSON.stringify(tools));

    if (!turn.prefix) {
      const { ctx, view } = await core.view();
      const envelope = buildContextEnvelope({ view, session: meta, domainProfile: ctx.domainProfile });
      const history = core.turns
        .conversation()
        .filter((m) => m.turnId !== turnId && (m.role === 'user' || m.role === 'assistant'))
        .map((m) => ({ role: m.role as 'user' | 'assistant', content: m.content }));
      const prepared = preparePrompt({
        session: meta,
        envelope,
        domainProfile: ctx.domainProfile,
        pkg: view.pkg,
        history,
        userMessage: turn.content,
        tools: [...offered],
        suggestOnly: turn.suggestOnly,
        contextWindow: profile.contextWindow ?? undefined,
        reservedTokens: toolTokens,
      });
      core.turns.setPrompt(turnId, prepared.messages, prepared.summary);
      this.#deps.emit({ type: 'turn.context', actor: { kind: 'system' }, turnId, payload: prepared.summary });
      audit.add({
        type: 'ai.prompt.composed',
        userId: turn.userId,
        payload: {
          turnId,
          layers: prepared.layers.map((l) => l.id),
          persona: { source: prepared.summary.persona.source, confidence: prepared.summary.persona.confidence },
          estimatedTokens: prepared.summary.budget.estimatedTokens,
          trimmed: prepared.summary.budget.trimmed.length,
        },
      });
      turn = core.turns.get(turnId)!;
    }
    const contextBudget = (turn.context?.budget.contextBudget ?? Number.MAX_SAFE_INTEGER) - toolTokens;

    for (;;) {
      if (active.stoppedBy) return { kind: 'stopped', by: active.stoppedBy };
      turn = core.turns.get(turnId)!;
      const loopMessages = core.turns.loopMessages(turnId);

      // A checkpointed response whose tool calls were not all answered (a restart mid-tools).
      const last = loopMessages.at(-1);
      if (last?.role === 'assistant' && (last as AssistantMessage).tool_calls?.length) {
        await this.#runToolCalls(active, turn, last as AssistantMessage, offered, audit);
        await audit.flush();
        continue;
      }

      this.#checkBudget(turn);
      if (turn.iteration >= MAX_LOOP_ITERATIONS) {
        fail('AI_TOOL_LOOP_LIMIT_EXCEEDED', `The AI used all ${MAX_LOOP_ITERATIONS} steps of a turn without finishing.`, [
          'Ask for a smaller change, or send your message again to continue from what is staged.',
        ]);
      }
      const fitted = fitToolMessages([...turn.prefix!, ...loopMessages], contextBudget);
      const iteration = turn.iteration + 1;
      this.#deps.emit({ type: 'llm.requested', actor: { kind: 'ai' }, turnId, payload: { iteration, messages: fitted.messages.length, tools: tools.length } });
      const coalescer = new DeltaCoalescer((text) => this.#deps.emit({ type: 'assistant.delta', actor: { kind: 'ai' }, turnId, payload: { iteration, text } }));
      const startedAt = Date.now();
      const outcome = await provider.streamChat({
        messages: fitted.messages,
        tools,
        signal: active.controller.signal,
        onTextDelta: (text) => coalescer.push(text),
      });
      coalescer.flush();
      if (outcome.type === 'aborted') return { kind: 'stopped', by: active.stoppedBy ?? { userId: turn.userId, name: turn.userName, role: turn.userRole } };
      if (outcome.type === 'failed') fail(outcome.error.code, outcome.error.message, outcome.error.hints);
      const result = outcome.result;

      const tokens = {
        promptTokens: result.usage?.promptTokens ?? 0,
        completionTokens: result.usage?.completionTokens ?? 0,
        totalTokens: result.usage?.totalTokens ?? 0,
      };
      // Priced by the model this turn asked for (the profile's), the id operators list prices under.
      const usage: Usage = { ...tokens, calls: 1, estimatedCostUsd: estimateCostUsd(this.#deps.prices(), profile.model, tokens) };
      const message = storedAssistantMessage(result.assistantMessage);
      core.turns.recordResponse(turnId, iteration, message, usage);
      this.#deps.emit({
        type: 'llm.completed',
        actor: { kind: 'ai' },
        turnId,
        payload: {
          iteration,
          finishReason: result.finishReason,
          toolCalls: result.toolCalls.length,
          usage,
          durationMs: Date.now() - startedAt,
          attempts: result.attempts,
          ...(result.usageEstimated ? { usageEstimated: true } : {}),
          ...(result.toolCallsFromText ? { toolCallsFromText: true } : {}),
        },
      });

      if (result.toolCalls.length > 0) {
        await this.#runToolCalls(active, core.turns.get(turnId)!, message, offered, audit, result.toolCalls);
        await audit.flush();
        continue;
      }

      // ---- the final answer
      const parsed = parseFinalAnswer(result.content, result.finishReason);
      if (!parsed.ok) {
        if (turn.formatRetries >= MAX_FORMAT_RETRIES) fail('AI_BAD_RESPONSE', parsed.problem, ['Send your message again; if it keeps happening, try another model.']);
        core.turns.update(turnId, { formatRetries: turn.formatRetries + 1 });
        core.turns.addMessage(
          repairRequest('your last answer could not be used', [
            `- problem: ${parsed.problem}`,
            '- End the turn with one JSON object: {"responseType": "chat" | "change", "assistantSummary": "<summary for the chat>"}.',
          ]),
          turnId,
          'repair',
        );
        continue;
      }
      const answer = parsed.answer;
      let answerError: ToolError | null = null;
      if (answer.changeSet !== undefined && !turn.suggestOnly) {
        const staged = await runToolCall(this.#deps, core.turns.get(turnId)!, { toolCallId: `final-${iteration}`, name: 'builder.change.stage', args: { changeSet: answer.changeSet }, iteration, refusal: null }, audit);
        if (!staged.ok && this.#repairOrGiveUp(turnId, 'the changeSet in your answer could not be staged', [`- error: ${JSON.stringify(staged.error)}`], Math.max(1, staged.error.details?.length ?? 1))) continue;
        if (!staged.ok) answerError = staged.error;
      }
      turn = core.turns.get(turnId)!;
      // A claim of changes with nothing staged is never a success (honest-ending.ts).
      const unstaged = nothingStaged(turn, answer, answerError, core.turns.loopMessages(turnId), meta);
      if (unstaged) {
        if (this.#repairOrGiveUp(turnId, 'nothing was staged', unstaged.repairLines, 1)) continue;
        return { kind: 'no-changes', reason: unstaged.reason };
      }
      let validation: (ChangeValidation & { changeSetId: string; version: number }) | null = null;
      let needsManualFix = false;
      if (turn.stagedVersion !== null && !turn.suggestOnly && core.overlay.size > 0) {
        const latest = core.versions.latest();
        if (latest) this.#deps.emit({ type: 'turn.validating', actor: { kind: 'system' }, turnId, payload: { version: latest.version, changeSetId: latest.id } });
        validation = await core.validate(undefined);
        if (!validation.valid) {
          audit.add({
            type: 'ai.validation.failed',
            userId: turn.userId,
            code: 'AI_VALIDATION_FAILED',
            payload: { turnId, version: validation.version, errorCount: validation.errors.length, codes: [...new Set(validation.errors.map((e) => e.code))] },
          });
          const errors = validation.errors.slice(0, 20).map((e) => ({ code: e.code, path: e.path, message: e.message, hints: e.hints }));
          if (this.#repairOrGiveUp(turnId, 'the staged changes do not pass validation', [`- errors: ${JSON.stringify(errors)}`, '- Fix them with builder.change.stage, then answer again.'], validation.errors.length)) continue;
          needsManualFix = true;
        }
      }
      const responseType = turn.suggestOnly ? 'chat' : turn.stagedVersion !== null ? 'change' : answer.responseType;
      return { kind: 'finished', responseType, summary: answer.assistantSummary, validation, needsManualFix };
    }
  }

  /** Ask the model for a repair (true), or report that the repairs are used up (false). */
  #repairOrGiveUp(turnId: string, title: string, lines: string[], errorCount: number): boolean {
    const { core } = this.#deps;
    const turn = core.turns.get(turnId)!;
    if (turn.repairs >= MAX_REPAIRS) return false;
    const attempt = turn.repairs + 1;
    core.turns.update(turnId, { repairs: attempt });
    core.turns.addMessage(repairRequest(title, [`- attempt: ${attempt} of ${MAX_REPAIRS}`, ...lines]), turnId, 'repair');
    this.#deps.emit({ type: 'turn.repairing', actor: { kind: 'system' }, turnId, payload: { attempt, maxRepairs: MAX_REPAIRS, errorCount } });
    return true;
  }

  async #runToolCalls(
    active: ActiveTurn,
    turn: TurnRecord,
    message: AssistantMessage,
    offered: ReadonlySet<string>,
    audit: AuditBuffer,
    assembled: AssembledToolCall[] = [],
  ): Promise<void> {
    for (const call of message.tool_calls ?? []) {
      if (call.type !== 'function') continue;
      const { name, args, refusal, notes } = readToolCall(call, assembled, offered);
      await runToolCall(this.#deps, turn, { toolCallId: call.id, name, args, iteration: turn.iteration, refusal, notes }, audit);
      if (active.stoppedBy) return;
    }
  }

}
