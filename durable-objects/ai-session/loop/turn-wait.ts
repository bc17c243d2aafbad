/**
 * POST …/messages?wait (shared/api/ai-sessions.ts MessageQuery): wait, in memory, until a turn ends or
 * the bound passes, then describe how it ended. If the object restarts meanwhile, the Worker's RPC
 * call fails and the route answers AI_TURN_WAIT_INTERRUPTED, so the client reads the session instead.
 */
import { ApiError } from '../../../shared/api-error.ts';
import type { MessageWaited } from '../../../shared/api/ai-sessions.ts';
import { TURN_END_EVENTS, type SessionEvent } from '../../../shared/ai/events.ts';
import type { ErrorCode } from '../../../shared/errors.ts';
import type { SessionCore } from '../session.ts';

/** While a running turn has no runner (restarted, waiting for the watchdog to resume it), look again this often. */
const ORPHAN_RECHECK_MS = 250;

export interface WaitDeps {
  core: SessionCore;
  /** The promise that settles when this instance's run of `turnId` ends, or null if it is not running it. */
  runOf: (turnId: string) => Promise<void> | null;
}

function delay(ms: number): { promise: Promise<void>; cancel: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

/** True once `turnId` is no longer running (finished, failed, stopped or paused); false when `timeoutMs` passed first. */
export async function waitForTurnEnd(deps: WaitDeps, turnId: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const turn = deps.core.turns.get(turnId);
    if (!turn) throw new ApiError('AI_TURN_NOT_FOUND');
    if (turn.status !== 'running') return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    const bound = delay(left);
    const recheck = deps.runOf(turnId) === null ? delay(Math.min(left, ORPHAN_RECHECK_MS)) : null;
    await Promise.race([bound.promise, recheck?.promise ?? deps.runOf(turnId)!]);
    bound.cancel();
    recheck?.cancel();
  }
}

/** How `turnId` ended: its status, summary or error, and the session's suggestion and validation now. */
export async function turnOutcome(core: SessionCore, turnId: string): Promise<MessageWaited> {
  const turn = core.turns.get(turnId);
  if (!turn) throw new ApiError('AI_TURN_NOT_FOUND');
  const ending: SessionEvent | undefined = core.log.lastOfTurn(turnId, TURN_END_EVENTS);
  const state = await core.state({ messagesLimit: 1 });
  const finished = ending?.type === 'turn.finished' ? ending.payload : null;
  const failed = ending?.type === 'turn.failed' ? ending.payload : null;
  return {
    turn: {
      turnId,
      status: turn.status,
      responseType: finished?.responseType ?? null,
      error: failed ? { code: failed.code as ErrorCode, message: failed.message, hints: failed.hints } : null,
      iterations: turn.iteration,
      repairs: turn.repairs,
      usage: turn.usage,
    },
    assistantSummary: finished?.summary ?? null,
    latestSuggestion: state.latestSuggestion,
    validation: state.validation,
  };
}
