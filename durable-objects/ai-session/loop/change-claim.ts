/**
 * Whether the words of a final answer claim a change ("I've updated the step…", "已更新") or carry
 * new file contents (a long fenced Markdown, JSON or YAML block), for honest-ending.ts: models
 * often say so in prose without calling builder_change_stage. Only plain claims count — a claim
 * in a question, after a negation or a condition ("I have not changed anything", "no change
 * needed", "Should I update it?", "没有修改") does not, nor an account of an earlier turn ("I updated
 * it earlier", "之前已更新"); a block of contents does not when the answer says plainly that nothing
 * was changed. Contents offered as a proposal ("it could look like this") do count: the chat shows
 * file contents only as a pointer to the diff, so a proposal is asked to be staged for review.
 * In a suggest-only turn (nothing can be staged) a proposal is the expected answer: there only a
 * claim that a change was made counts, not contents nor "here is the updated step".
 *
 * `appliedClaim` reads the other false claim: that a change was applied, published, deployed or
 * is live ("I've applied the changes, they're live now", "已应用，现在已生效"). The AI only stages;
 * a person reviews and applies. A future or conditional ("it will be live once you apply it",
 * "应用后即可生效"), a question, a negation ("not applied yet", "尚未应用") or an account of the
 * draft ("applied to the draft") is no such claim.
 */
import { isFileContents } from './final-answer.ts';

export type ChangeClaim = 'claim' | 'contents';

const EN_VERBS =
  'updated|added|changed|modified|rewritten|rewrote|revised|created|replaced|improved|edited|fixed|removed|deleted|renamed|restructured|refined|' +
  'optimi[sz]ed|expanded|inserted|adjusted|reworded|rephrased|tightened|clarified|simplified|shortened|reorgani[sz]ed|polished|streamlined|' +
  'extended|merged|moved|consolidated|enhanced|corrected|appended|drafted|implemented|introduced|incorporated|staged|applied';
const ZH_VERBS = '更新|修改|更改|添加|新增|增加|创建|优化|删除|移除|替换|重写|改写|调整|完善|修正|补充|改为|改成|编辑|暂存|应用';

const CLAIMS: readonly RegExp[] = [
  // "I've updated", "I have now added", "we rewrote", "I made the changes"
  new RegExp(`\\b(?:i|we)(?:'ve|’ve| have)?\\s+(?:now\\s+|just\\s+|also\\s+|already\\s+|successfully\\s+)?(?:${EN_VERBS})\\b`, 'iu'),
  /\b(?:i|we)(?:'ve|’ve| have)?\s+(?:now\s+|just\s+|also\s+|already\s+)?made\s+(?:the\s+|these\s+|those\s+|all\s+the\s+|some\s+)?(?:changes?|edits?|updates?)\b/iu,
  // "The step has been updated"
  new RegExp(`\\b(?:has|have)\\s+(?:now\\s+|just\\s+)?been\\s+(?:${EN_VERBS})\\b`, 'iu'),
  // "Updated classify-issue to cite …" at the start of a sentence or a list item
  new RegExp(`^(?:[-*•]\\s*)?(?:${EN_VERBS})\\s`, 'iu'),
  // 已更新 / 已经修改 / 已被删除 / 已为你添加
  new RegExp(`已(?:经)?(?:被|为你|为您|帮你|帮您|将)?(?:${ZH_VERBS})`, 'u'),
  // 我修改了 / 我已经帮你优化了
  new RegExp(`我(?:已经?)?(?:为你|为您|帮你|帮您)?(?:${ZH_VERBS})了`, 'u'),
  // 做了以下修改 / 进行了优化
  new RegExp(`(?:进行|做)了(?:一些|以下|如下|这些)?(?:${ZH_VERBS})`, 'u'),
];

/** Words that present a changed text ("Here is the updated step:", "以下是更新后的步骤"): a claim, except in a suggest-only turn, where they present a proposal. */
const PRESENTS: readonly RegExp[] = [
  /\bhere(?:'s|’s| is| are)\s+(?:the\s+|your\s+)?(?:updated|revised|new|improved|rewritten|modified|optimi[sz]ed|edited|changed)\b/iu,
  new RegExp(`(?:以下|下面|如下)(?:是|为)?[^。！？\\n]{0,15}(?:${ZH_VERBS})后的`, 'u'),
];

/** A sentence about an earlier turn ("as I updated it earlier", "之前已更新"): an account of what was staged before, not a claim for this turn. */
const EARLIER = /\b(?:earlier|previous(?:ly)?|last (?:turn|time|message|answer)|before this|in (?:the|my) (?:first|last|previous) (?:turn|answer|message))\b|之前|此前|先前|上一轮|上次|刚才/iu;

/** A claim of nothing: "I changed nothing". */
const OF_NOTHING = /^\s*(?:nothing|anything)\b/iu;
/** Words before a claim in its sentence that make it no claim: a negation or a condition. */
const NOT_A_CLAIM = /\b(?:not|never|no|nothing|none|without|if|unless)\b|n['’]t\b|未|没|无需|不需要|不用|不必|如果|若/iu;

/** The answer says plainly that it changed nothing. */
const NOTHING_CHANGED =
  /\b(?:no changes?|nothing (?:was|has been|is) (?:changed|staged|modified|updated)|(?:did not|didn['’]t|have not|haven['’]t|has not|hasn['’]t|made no|not)\s+(?:\w+\s+){0,2}(?:change[ds]?|modif(?:y|ied)|update[ds]?|stage[ds]?))\b|(?:没有|未|并未|尚未)(?:做|进行)?(?:任何)?(?:修改|更改|更新|暂存|改动)|无需修改|不需要修改/iu;

const FENCED = /```([^\n`]*)\n([\s\S]*?)```/gu;
/** Fence languages of package files (Markdown, JSON, YAML) or none. */
const FILE_LANGUAGES = new Set(['', 'md', 'markdown', 'json', 'jsonc', 'yaml', 'yml', 'text', 'txt', 'plaintext']);

const DONE_EN = 'applied|published|deployed|released|activated';
const CHANGES_EN = 'changes?|edits?|updates?|fix(?:es)?|modifications?|revisions?|improvements?';

const APPLIED: readonly RegExp[] = [
  // "I've applied the changes", "we just published it"
  new RegExp(`\\b(?:i|we)(?:'ve|’ve| have)?\\s+(?:now\\s+|just\\s+|also\\s+|already\\s+|successfully\\s+)?(?:${DONE_EN})\\b`, 'iu'),
  // "The changes have been applied", "Changes applied successfully", "the edits are now live"
  new RegExp(`\\b(?:${CHANGES_EN})\\s+(?:(?:is|are|was|were|has been|have been)\\s+)?(?:now\\s+|already\\s+|all\\s+|successfully\\s+)?(?:${DONE_EN}|live|in effect)\\b`, 'iu'),
  // "It has been applied", "everything is now deployed"
  new RegExp(`\\b(?:it|they|this|these|everything|all of (?:it|them))\\s+(?:is|are|was|were|has been|have been)\\s+(?:now\\s+|already\\s+|successfully\\s+)?(?:${DONE_EN})\\b`, 'iu'),
  new RegExp(`\\b(?:has|have)\\s+(?:now\\s+|just\\s+|already\\s+)?been\\s+(?:successfully\\s+)?(?:${DONE_EN})\\b`, 'iu'),
  // "Applied the citation rule." at the start of a sentence or a list item
  new RegExp(`^(?:${DONE_EN})\\b(?!\\s+(?:to|in)\\s+(?:the\\s+)?draft)`, 'iu'),
  // "they're live now", "It is now in effect", "now live in your workflow", "went live", "took effect"
  /\b(?:is|are|was|were)\s+(?:now\s+|already\s+)?(?:live|in effect)\b|['’](?:s|re)\s+(?:now\s+|already\s+)?(?:live|in effect)\b/iu,
  /\bnow\s+(?:live|in effect)\b|\b(?:went|gone)\s+live\b|\b(?:took|taken)\s+effect\b/iu,
  // "saved them to the project"
  /\b(?:saved|committed)\s+(?:\S+\s+){0,3}?(?:to|into|in)\s+(?:the|your)\s+(?:project|package)\b/iu,
  // 已应用 / 已经生效 / 已成功发布 / 已为您应用 / 已将修改应用到项目 / 已在项目中生效 (never "已暂存，待应用")
  /已(?:经)?(?:成功|全部|正式)?(?:为你|为您|帮你|帮您)?(?:(?:将|把|在)(?:(?!暂存|待|草稿)[^。！？，,；;\n]){0,20}?)?(?:应用|生效|上线|发布|部署)/u,
  // 我应用了 / 我已经帮你发布了
  /我(?:已经?)?(?:为你|为您|帮你|帮您)?(?:应用|发布|部署)了/u,
  // 现在已生效 / 现已上线 / 生效了 / 上线了
  /(?:现在|目前|现已)(?:已经?)?(?:生效|上线)|(?:生效|上线)了/u,
];

/** Words before an applied-claim that make it none: a negation, a condition, a future. */
const NOT_APPLIED_BEFORE = /\b(?:once|when|after|until|upon|as soon as|will|would|could|can|should|may|might|must|to be)\b|['’]ll\b|一旦|之后|以后|应用后|审阅后|批准后|待|等到|只要|才|将会|就会|便会/iu;
/** Words after it that make it none: a condition, or an account of the draft. */
const NOT_APPLIED_AFTER = /\b(?:once|when|after|until|unless|if|upon|as soon as|draft|working copy)\b|一旦|只要|如果|草稿|工作副本/iu;

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|(?<=[。！？])|\n+/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function claimIn(sentence: string, patterns: readonly RegExp[]): boolean {
  if (/[?？]$/u.test(sentence) || EARLIER.test(sentence)) return false;
  for (const pattern of patterns) {
    const match = pattern.exec(sentence);
    if (match && !NOT_A_CLAIM.test(sentence.slice(0, match.index)) && !OF_NOTHING.test(sentence.slice(match.index + match[0].length))) return true;
  }
  return false;
}

/** Markdown marks that would hide a claim's start: emphasis, headings, list markers, check marks. */
function plain(sentence: string): string {
  return sentence
    .replace(/[*_`]+/gu, '')
    .replace(/^(?:#{1,6}\s*|[-+•]\s*|\d+[.)]\s*|[✅✔☑️🎉🚀]+\s*)+/u, '')
    .trim();
}

function appliedIn(sentence: string): boolean {
  if (/[?？]$/u.test(sentence) || EARLIER.test(sentence)) return false;
  for (const pattern of APPLIED) {
    const match = pattern.exec(sentence);
    if (!match) continue;
    const before = sentence.slice(0, match.index);
    const after = sentence.slice(match.index + match[0].length);
    if (NOT_A_CLAIM.test(before) || NOT_APPLIED_BEFORE.test(before) || NOT_APPLIED_AFTER.test(after) || /^\s*(?:yet|still)\b/iu.test(after)) continue;
    return true;
  }
  return false;
}

/**
 * Whether a sentence of `text` (outside code blocks) says a change was applied, published,
 * deployed or is live: never true in this product, where the AI only stages (honest-ending.ts).
 */
export function appliedClaim(text: string): boolean {
  return sentences(text.replace(FENCED, '\n')).some((sentence) => appliedIn(plain(sentence)));
}

/**
 * 'claim' when a sentence of `text` (outside code blocks) says a change was made, 'contents' when it
 * carries a long Markdown/JSON/YAML block (file contents, as the chat would hide them) and does not
 * say that nothing changed; null otherwise. With `suggestOnly`, only a claim that a change was made
 * counts (never 'contents').
 */
export function changeClaim(text: string, options: { suggestOnly?: boolean } = {}): ChangeClaim | null {
  const blocks = [...text.matchAll(FENCED)];
  const prose = text.replace(FENCED, '\n');
  const patterns = options.suggestOnly ? CLAIMS : [...CLAIMS, ...PRESENTS];
  if (sentences(prose).some((sentence) => claimIn(sentence, patterns))) return 'claim';
  if (options.suggestOnly) return null;
  const contents = blocks.some((block) => FILE_LANGUAGES.has(block[1]!.trim().toLowerCase()) && isFileContents(block[2]!));
  return contents && !NOTHING_CHANGED.test(prose) ? 'contents' : null;
}
