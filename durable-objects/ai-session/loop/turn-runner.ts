/**
 * The AI turn (events and their order: PROTOCOL.md): one user message → a streamed chat completion
 * with the builder.* tools → each tool call validated and run exactly once, its result appended
 * as a `role=tool` message → again, until the model answers without tool calls. A staged change
 * is then validated, with at most two repairs. Every step is an event; the state is checkpointed
 * (turn-store.ts) after every model response and every tool run, so a restarted object resumes
 * the turn from the alarm (watchdog) without repeating a finished tool call, or ends it with an
 * explicit event. Stop aborts the provider request at once. This file holds the commands (accept,
 * stop, resume, watchdog) and the run around the loop; the loop and its steps are turn-loop.ts.
 */
import { ApiError } from '../../../shared/api-error.ts';
import { newId } from '../../../shared/ids.ts';
import type { EffectiveLlmProfile } from '../../../worker/llm/effective-profile.ts';
import type { SealedLlmProfile } from '../../../shared/llm/types.ts';
import { atLeast } from '../../../shared/api/common.ts';
import type { MessageAccepted, MessageInput } from '../../../shared/api/ai-sessions.ts';
import { userActor } from '../../../shared/ai/events.ts';
import type { Actor } from '../session.ts';
import { AuditBuffer } from './audit-buffer.ts';
import { TurnEnded, budgetReached, type ActiveTurn, type TurnDeps } from './loop-context.ts';
import { runLoop } from './turn-loop.ts';
import { endTurn, type Ending } from './turn-endings.ts';
import { logError } from '../../../shared/errors-report.ts';
import { turnInProgress } from '../session-host.ts';

export type { TurnDeps } from './loop-context.ts';

/** A turn resumed this many times after restarts and still interrupted ends as failed. */
export const MAX_RESUMES = 3;
/** How long stop waits for the loop to wind down before answering (the abort itself is immediate). */
const STOP_WAIT_MS = 5_000;

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

  /** Settles when this instance's run of `turnId` is over, its audit flush included; null when it is not running that turn. */
  runOf(turnId: string): Promise<void> | null {
    return this.#active?.turnId === turnId ? this.#active.done : null;
  }

  /** Settles once this instance's run of `turnId` has stored and told its ending; null when it is not running that turn (turn-wait.ts). */
  endOf(turnId: string): Promise<void> | null {
    return this.#active?.turnId === turnId ? this.#active.ended : null;
  }

  // ---------------------------------------------------------------- commands

  /**
   * A user message: accepted (and the turn started) or refused before anything is stored.
   * `senderProfile`: the sender's saved AI profile as the Worker read it with the cookie (null:
   * none saved), so the message costs no D1 round trip here; absent, it is read from D1.
   */
  async accept(actor: Actor, input: MessageInput, senderProfile?: SealedLlmProfile | null): Promise<MessageAccepted> {
    const { core } = this.#deps;
    this.#checkCanSend(actor);
    const profile = await this.#deps.resolveProfile(actor.userId, senderProfile);
    if (profile.type === 'unavailable') throw new ApiError(profile.code, { message: profile.message, hints: profile.hints });
    // Checked again after the await: a second message may have been accepted meanwhile.
    this.#checkCanSend(actor);
    const turnId = newId('turn');
    const suggestOnly = input.suggestOnly ?? false;
    const accepted = this.#deps.emit({ type: 'turn.accepted', actor: userActor(actor), turnId, payload: { content: input.content, suggestOnly } });
    core.senderLocales.set(turnId, actor.locale ?? null);
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
    if (open) throw turnInProgress(open, 'send your message again');
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

  /**
   * Continue a turn the token budget paused, once the budget allows it. The turn runs on its
   * sender's model: on their own profile (their key, their bill) only they may resume it; on the
   * system default any editor may. Raising the budget spends nothing; this is the spend.
   */
  async resume(actor: Actor): Promise<{ turnId: string; status: 'running' }> {
    const { core } = this.#deps;
    if (core.status !== 'active') throw new ApiError('AI_SESSION_CLOSED');
    const turn = core.turns.open();
    if (!turn || turn.status !== 'paused') throw new ApiError('AI_TURN_NOT_RUNNING', { message: 'There is no paused turn to resume.' });
    if (!atLeast(actor.role, 'editor')) throw new ApiError('FORBIDDEN', { message: 'Resuming the AI needs the editor role.' });
    const profile = await this.#deps.resolveProfile(turn.userId);
    if (profile.type === 'unavailable') throw new ApiError(profile.code, { message: profile.message, hints: profile.hints });
    if (profile.profile.source === 'user' && actor.userId !== turn.userId) {
      const name = turn.userName || 'the person who sent it';
      throw new ApiError('FORBIDDEN', {
        message: `This turn runs on ${name}'s own AI model and key, so only ${name} can resume it.`,
        hints: [`Ask ${name} to resume it, or stop it and send a new message to run on your own model.`],
        extra: { turnId: turn.id },
      });
    }
    const budget = budgetReached(core);
    if (budget !== null) {
      throw new ApiError('AI_TOKEN_BUDGET_EXCEEDED', { hints: ['Raise the session token budget, then resume.'], extra: { tokenBudget: budget, turnId: turn.id } });
    }
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

  // ---------------------------------------------------------------- running a turn (the loop itself: turn-loop.ts)

  #audit(profile: EffectiveLlmProfile | null): AuditBuffer {
    const meta = this.#deps.core.meta!;
    return new AuditBuffer(this.#deps.audit, meta, profile?.apiKey ? [profile.apiKey] : []);
  }

  #start(turnId: string, profile: EffectiveLlmProfile, audit: AuditBuffer): void {
    const controller = new AbortController();
    let markEnded!: () => void;
    const ended = new Promise<void>((resolve) => (markEnded = resolve));
    const active: ActiveTurn = { turnId, controller, stoppedBy: null, done: Promise.resolve(), ended, markEnded };
    this.#active = active;
    active.done = this.#run(active, profile, audit).finally(() => {
      active.markEnded();
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
      ending = await runLoop(this.#deps, active, profile, audit);
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
    // The ending is stored and told: a caller waiting for it (POST …/messages?wait) answers now. The
    // audit rows are already in the outbox; copying them to D1 is not on that answer's path (issue 19).
    active.markEnded();
    await audit.flush();
  }
}
