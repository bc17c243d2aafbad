/**
 * Honest endings: a final answer that claims changes (responseType "change", a changeSet, or words
 * that say a change was made or carry new file contents, change-claim.ts) while nothing was staged
 * in the turn is never a success. The loop first tells the model exactly why nothing was staged and
 * which tool to call (a repair; once only for a claim in words, which may be read wrongly); once
 * the repairs are spent the turn ends with a visible "no changes staged" outcome and the reason
 * (turn-endings.ts). An answer that only explains or asks ends as it is. In a suggest-only turn
 * nothing can be changed, so any claim in words that a change was made is false: it is sent back
 * once with the suggest-only wording, then ends the same way; a suggestion (contents included, and
 * a responseType "change") ends as it is.
 *
 * A turn that did stage can still end on a false claim: that the change was applied, published or
 * is live (change-claim.ts `appliedClaim`). The change itself is right, only the words are not, so
 * the turn finishes as it would, its summary followed by a correction in the summary's language
 * (`notAppliedSummary`): the end event and the chat say the change is staged for review, not
 * applied. No repair is asked for it: a repair re-sends the whole conversation to fix a sentence,
 * and spends a repair that validation may need.
 */
import type { ToolEnvelope, ToolError } from '../../../shared/ai/tool-envelope.ts';
import type { SessionMeta } from '../../../shared/ai/session.ts';
import type { FinalAnswer } from '../../../shared/ai/turn.ts';
import type { ChatMessage } from '../../../shared/llm/types.ts';
import { exampleChangeSet } from '../prompt/output-contract.ts';
import { fromWireName } from '../tools/registry.ts';
import { appliedClaim, changeClaim } from './change-claim.ts';
import { MAX_SUMMARY_CHARS } from './final-answer.ts';
import type { TurnRecord } from './turn-store.ts';
import type { Ending } from './turn-endings.ts';

export interface NothingStaged {
  /** Why nothing was staged, in one sentence for the model and for people. */
  reason: string;
  /** The repair request's lines. */
  repairLines: string[];
  /** The claim is only in the answer's words: the model is asked once (alreadyAsked), not at every repair. */
  inWords: boolean;
}

/** The title of the repair request that says nothing was staged. */
export const NOTHING_STAGED_TITLE = 'nothing was staged';

/** Whether this turn's model was already told that nothing was staged. */
export function alreadyAsked(messages: readonly ChatMessage[]): boolean {
  return messages.some((m) => m.role === 'user' && typeof m.content === 'string' && m.content.startsWith(`REPAIR_REQUEST: ${NOTHING_STAGED_TITLE}\n`));
}

/** The error of the latest failed `builder.change.stage` call of the turn, if the latest one failed. */
export function lastStageFailure(messages: readonly ChatMessage[]): ToolError | null {
  const stageCalls = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const call of message.tool_calls ?? []) {
      if (call.type === 'function' && fromWireName(call.function.name) === 'builder.change.stage') stageCalls.add(call.id);
    }
  }
  let latest: ToolError | null = null;
  for (const message of messages) {
    if (message.role !== 'tool' || !stageCalls.has(message.tool_call_id)) continue;
    try {
      const result = JSON.parse(String(message.content)) as ToolEnvelope;
      latest = result.ok ? null : result.error;
    } catch {
      continue;
    }
  }
  return latest;
}

function describe(error: ToolError): string {
  const first = error.details?.[0];
  return `${error.code}: ${error.message}${first && first.message !== error.message ? ` (${first.path ? `${first.path}: ` : ''}${first.message})` : ''}`;
}

/**
 * The ending when the final answer's changeSet could not be staged (repairs spent) while an
 * earlier call of the turn staged `version`: the turn fails, naming what the draft holds.
 */
export function finalChangeNotStaged(error: ToolError, version: number): Extract<Ending, { kind: 'failed' }> {
  return {
    kind: 'failed',
    code: 'AI_FINAL_CHANGE_NOT_STAGED',
    message: `The AI's last change could not be staged (${describe(error)}); the draft keeps version ${version}, staged earlier in this turn.`,
    hints: ['Review version ' + version + ' in the changes: it is not what the AI described last. Ask again, or edit the draft yourself.'],
  };
}

/**
 * Null when the ending is honest as it stands; otherwise why nothing was staged. `answerError` is
 * the failure of staging the changeSet the final answer carried, if it had one; `said`, the
 * answer's words for people as the model wrote them (final-answer.ts). `latestApplied`: a person
 * applied the session's latest version, so words saying it was applied or is live may be true.
 */
export function nothingStaged(
  turn: TurnRecord,
  answer: FinalAnswer,
  answerError: ToolError | null,
  messages: readonly ChatMessage[],
  session: SessionMeta,
  said: string,
  latestApplied = false,
): NothingStaged | null {
  const liveClaim = !latestApplied && appliedClaim(said);
  if (turn.suggestOnly) return suggestOnlyClaim(said, liveClaim);
  if (turn.stagedVersion !== null) return null;
  const declared = answer.responseType === 'change' || answer.changeSet !== undefined;
  // "It is live now" with nothing staged (and nothing applied) claims a change as much as "I've updated it" does.
  const inWords = declared ? null : (changeClaim(said) ?? (liveClaim ? 'claim' : null));
  if (!declared && inWords === null) return null;
  const failure = answerError ?? lastStageFailure(messages);
  const reason = answerError
    ? `the changeSet in your final answer could not be staged (${describe(answerError)})`
    : failure
      ? `your last builder_change_stage call failed (${describe(failure)}) and no later call succeeded`
      : 'no builder_change_stage call succeeded in this turn, so no file was changed';
  const problem =
    inWords === 'contents'
      ? `- problem: your answer shows new file contents, but contents in an answer change no file and nothing is staged: ${reason}.`
      : `- problem: your answer says you made changes, but nothing is staged: ${reason}.`;
  return {
    reason,
    inWords: inWords !== null,
    repairLines: [
      problem,
      `- To change files, call builder_change_stage with {"changeSet": …}, for example ${JSON.stringify({ changeSet: exampleChangeSet(session) })}; then answer again.`,
      '- If you did not mean to change anything, answer with "responseType": "chat" and say plainly that you made no change (without file contents).',
    ],
  };
}

/** Why nothing changed in a suggest-only turn, for the model and for people. */
export const SUGGEST_ONLY_REASON = 'this turn was suggest-only, so the AI could not change any file and nothing was changed';

/** A suggest-only turn's answer that claims a change was made (never contents nor responseType alone: a suggestion is the expected answer). */
function suggestOnlyClaim(said: string, liveClaim: boolean): NothingStaged | null {
  if (changeClaim(said, { suggestOnly: true }) === null && !liveClaim) return null;
  return {
    reason: SUGGEST_ONLY_REASON,
    inWords: true,
    repairLines: [
      '- problem: your answer says you made changes, but this turn is suggest-only: you cannot change files in this turn, and nothing was changed.',
      '- Answer again with "responseType": "chat": describe your suggestion as a suggestion ("I suggest …", "You could …"), or say what you would change. Do not say that you changed anything.',
    ],
  };
}

/** The correction under a summary that claims a staged change was applied, in the summary's language. */
export const NOT_APPLIED_NOTE = {
  en: 'Correction: this change is staged for review and not applied. Nothing is live until a person reviews and applies it.',
  zh: '更正：此修改已暂存待审阅，尚未应用。在有人审阅并应用之前，它不会生效。',
} as const;

/**
 * The summary of a turn that staged `version` (not applied since) when the answer's words (`said`)
 * claim it was applied or is live: the summary with the correction under it. Null when the words
 * make no such claim.
 */
export function notAppliedSummary(summary: string, said: string): string | null {
  if (!appliedClaim(said)) return null;
  const note = /\p{Script=Han}/u.test(said) ? NOT_APPLIED_NOTE.zh : NOT_APPLIED_NOTE.en;
  const room = MAX_SUMMARY_CHARS - note.length - 2;
  const kept = summary.length > room ? `${summary.slice(0, room - 1)}…` : summary;
  return `${kept}\n\n${note}`;
}
