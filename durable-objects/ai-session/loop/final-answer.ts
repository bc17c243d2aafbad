/**
 * The model's last message of a turn (no tool calls): the original product's final-answer
 * contract `{"responseType": "chat"|"change", "assistantSummary": "…", "changeSet"?: {…}}`
 * read leniently — a fenced JSON block and trailing commas are fine (the reading
 * is shared/ai/lenient-input.ts, as for tool arguments), snake_case or shorter key names and a
 * responseType in other case are read as the contract's, and plain prose counts as a chat summary —
 * but never shown whole: the chat shows a summary, contents live in the diff.
 */
import { parseJsonLenient, parseLenient } from '../../../shared/ai/lenient-input.ts';
import { FinalAnswer } from '../../../shared/ai/turn.ts';
import type { FinishReason } from '../../../shared/llm/types.ts';
import { withoutThinking } from '../../../shared/llm/thinking.ts';

/** The chat shows at most this much of a summary. */
export const MAX_SUMMARY_CHARS = 2000;
/** Code blocks longer than this many lines are file contents, not a summary. */
const MAX_CODE_BLOCK_LINES = 6;

/** `said`: the answer's words for people as the model wrote them, before summaryOnly (honest-ending.ts reads them). */
export type FinalAnswerParse = { ok: true; answer: FinalAnswer; fromJson: boolean; said: string } | { ok: false; problem: string };

const FENCED_JSON = /^```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/u;
const FENCED_ANYWHERE = /```(?:json)?[ \t]*\n([\s\S]*?)\n?```/gu;
/** A key only the contract has (in any of the spellings contractShape reads): JSON in prose that names one is the answer. */
const CONTRACT_KEY = /"(?:responseType|response_type|assistantSummary|assistant_summary)"\s*:/u;

function jsonCandidate(content: string): string | null {
  const trimmed = content.trim();
  const fenced = FENCED_JSON.exec(trimmed);
  const text = fenced ? fenced[1]!.trim() : trimmed;
  // Text that opens like a JSON object is meant as the contract, even if it was cut short.
  if (text.startsWith('{') || fenced) return text;
  // Prose around the contract ("Here is my answer: ```json {…}```", or the object after a sentence):
  // the last fenced object, else the text from the first `{` to the last `}`, when it names the contract's key.
  const blocks = [...trimmed.matchAll(FENCED_ANYWHERE)].map((m) => m[1]!.trim()).filter((b) => b.startsWith('{') && CONTRACT_KEY.test(b));
  if (blocks.length > 0) return blocks.at(-1)!;
  const start = trimmed.indexOf('{');
  const end = trimmed.lastIndexOf('}');
  const inner = start >= 0 && end > start ? trimmed.slice(start, end + 1) : '';
  return CONTRACT_KEY.test(inner) ? inner : null;
}

/** A code block's body long enough to be file contents, not part of a summary. */
export function isFileContents(body: string): boolean {
  return body.split('\n').length > MAX_CODE_BLOCK_LINES;
}

/**
 * Keep the chat summary-only: long code blocks (file contents) are replaced by a pointer to the
 * diff, and the text is capped.
 */
export function summaryOnly(text: string): string {
  const withoutFiles = text.replace(/```[^\n]*\n([\s\S]*?)```/gu, (block, body: string) => (isFileContents(body) ? '[Full contents are in the diff.]' : block));
  const trimmed = withoutFiles.trim();
  return trimmed.length > MAX_SUMMARY_CHARS ? `${trimmed.slice(0, MAX_SUMMARY_CHARS - 1)}…` : trimmed;
}

/** Other spellings models use for the contract's keys (snake_case, shorter names), in order of preference. */
const KEY_ALIASES: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['responseType', ['response_type', 'responsetype', 'ResponseType', 'type']],
  ['assistantSummary', ['assistant_summary', 'assistantsummary', 'AssistantSummary', 'summary', 'message', 'answer', 'reply']],
  ['changeSet', ['change_set', 'changeset', 'ChangeSet']],
  ['addressedThreads', ['addressed_threads']],
];

/**
 * The answer object with the contract's own key names and a responseType the contract knows:
 * `{"response_type": "Change", "summary": "…"}` is the answer it plainly is. A missing
 * responseType is read from the rest: "change" when a changeSet comes with it, else "chat" (what
 * the turn reports is decided by what was staged, never by this word). Anything else (another
 * word, a number) is left as it is for the contract check to name.
 */
function contractShape(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const answer: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [key, aliases] of KEY_ALIASES) {
    if (answer[key] !== undefined) continue;
    const alias = aliases.find((name) => answer[name] !== undefined && (key !== 'assistantSummary' || typeof answer[name] === 'string'));
    if (alias === undefined) continue;
    answer[key] = answer[alias];
    delete answer[alias];
  }
  const said = answer['responseType'];
  if (said === undefined || said === null || said === '') {
    answer['responseType'] = answer['changeSet'] !== undefined && answer['changeSet'] !== null ? 'change' : 'chat';
  } else if (typeof said === 'string') {
    const word = said.trim().toLowerCase();
    if (word === 'chat' || word === 'change') answer['responseType'] = word;
    else if (word === 'changes' || word === 'changeset' || word === 'change_set') answer['responseType'] = 'change';
  }
  return answer;
}

export function parseFinalAnswer(content: string, finishReason: FinishReason | null): FinalAnswerParse {
  if (finishReason === 'length') return { ok: false, problem: 'The answer was cut off because it reached the output limit.' };
  if (finishReason === 'content_filter') return { ok: false, problem: "The provider's content filter stopped the answer." };
  const answerText = withoutThinking(content);
  if (!answerText.trim()) return { ok: false, problem: content.trim() ? 'The answer held only reasoning (<think>…</think>), no answer after it.' : 'The answer was empty.' };
  const candidate = jsonCandidate(answerText);
  if (candidate !== null) {
    const read = parseJsonLenient(candidate);
    if (!read.ok) return { ok: false, problem: 'The answer looks like JSON but does not parse.' };
    const shaped = contractShape(read.value);
    // An over-long summary is cut like prose is, before the contract's length check: length alone
    // is no reason to ask again (the retry would send the whole answer back with it).
    const summary = typeof shaped === 'object' && shaped !== null ? (shaped as Record<string, unknown>)['assistantSummary'] : undefined;
    const long = typeof summary === 'string' && summary.length > MAX_SUMMARY_CHARS ? summary : null;
    const { result: parsed } = parseLenient(FinalAnswer, long === null ? shaped : { ...(shaped as Record<string, unknown>), assistantSummary: summaryOnly(long) });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { ok: false, problem: `The answer does not follow the contract: ${issue ? `${issue.path.join('.') || 'answer'}: ${issue.message}` : 'unknown problem'}.` };
    }
    // "changeSet": null is a model's way of saying it has none.
    const { changeSet, ...rest } = parsed.data;
    const answer: FinalAnswer = { ...rest, assistantSummary: summaryOnly(parsed.data.assistantSummary), ...(changeSet === null || changeSet === undefined ? {} : { changeSet }) };
    return { ok: true, answer, fromJson: true, said: long ?? parsed.data.assistantSummary };
  }
  return { ok: true, answer: { responseType: 'chat', assistantSummary: summaryOnly(answerText) }, fromJson: false, said: answerText };
}
