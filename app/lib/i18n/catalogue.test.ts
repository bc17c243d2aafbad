import { describe, expect, it } from 'vitest';
import { en } from './en.ts';
import { zh } from './zh.ts';
import { workbenchEn } from './en/workbench.ts';
import { workbenchZh } from './zh/workbench.ts';
import { workbenchDetails as detailsEn } from './en/workbench-details.ts';
import { workbenchDetails as detailsZh } from './zh/workbench-details.ts';
import { semanticDiff as semanticEn } from './en/semantic-diff.ts';
import { semanticDiff as semanticZh } from './zh/semantic-diff.ts';
import { diffView as diffEn } from './en/diff-view.ts';
import { diffView as diffZh } from './zh/diff-view.ts';
import { issues as issuesEn } from './en/issues.ts';
import { issues as issuesZh } from './zh/issues.ts';
import { pageWords as pageEn } from './en/page-words.ts';
import { pageWords as pageZh } from './zh/page-words.ts';
import { graph as graphEn, workflowPage as workflowPageEn } from './en/graph.ts';
import { graph as graphZh, workflowPage as workflowPageZh } from './zh/graph.ts';
import { llm as llmEn } from './en/llm.ts';
import { llm as llmZh } from './zh/llm.ts';
import { history as historyEn } from './en/history.ts';
import { history as historyZh } from './zh/history.ts';
import { assets as assetsEn, assetsPage as assetsPageEn, diff as diffLinesEn } from './en/assets.ts';
import { assets as assetsZh, assetsPage as assetsPageZh, diff as diffLinesZh } from './zh/assets.ts';
import { agents as agentsEn, agentsPage as agentsPageEn } from './en/agents.ts';
import { agents as agentsZh, agentsPage as agentsPageZh } from './zh/agents.ts';
import { importing as importingEn } from './en/importing.ts';
import { importing as importingZh } from './zh/importing.ts';
import type { LazyArea, Messages } from './catalogue.ts';

/** Every leaf of a catalogue as `dotted.key → text`. */
function leaves(tree: object, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === 'string') out.set(prefix + key, value);
    else for (const [k, v] of leaves(value as object, `${prefix}${key}.`)) out.set(k, v);
  }
  return out;
}

const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();

/** The areas added where they are shown (the `*-words.ts` modules): one left out here is a type error. */
const lazyEnglish = {
  workbench: workbenchEn,
  workbenchDetails: detailsEn,
  semanticDiff: semanticEn,
  diffView: diffEn,
  issues: issuesEn,
  pageWords: pageEn,
  graph: graphEn,
  workflowPage: workflowPageEn,
  llm: llmEn,
  history: historyEn,
  diff: diffLinesEn,
  agents: agentsEn,
  agentsPage: agentsPageEn,
  assets: assetsEn,
  assetsPage: assetsPageEn,
  importing: importingEn,
} satisfies Record<LazyArea, object>;
const lazyChinese: Pick<Messages, LazyArea> = {
  workbench: workbenchZh,
  workbenchDetails: detailsZh,
  semanticDiff: semanticZh,
  diffView: diffZh,
  issues: issuesZh,
  pageWords: pageZh,
  graph: graphZh,
  workflowPage: workflowPageZh,
  llm: llmZh,
  history: historyZh,
  diff: diffLinesZh,
  agents: agentsZh,
  agentsPage: agentsPageZh,
  assets: assetsZh,
  assetsPage: assetsPageZh,
  importing: importingZh,
};

describe('the message catalogues', () => {
  // Every page's catalogue and the areas added where they are shown.
  const english = leaves({ ...en, ...lazyEnglish });
  const chinese = leaves({ ...zh, ...lazyChinese });

  it('have the same keys in both languages', () => {
    expect([...chinese.keys()].sort()).toEqual([...english.keys()].sort());
  });

  it('have no empty text', () => {
    for (const [key, text] of [...english, ...chinese]) expect(text.trim(), key).not.toBe('');
  });

  it('use the same placeholders in both languages', () => {
    for (const [key, text] of english) expect(placeholders(chinese.get(key) ?? ''), key).toEqual(placeholders(text));
  });

  it('translate what is words: the Chinese text is not the English one, except names and codes', () => {
    const untranslated = [...english].filter(([key, text]) => chinese.get(key) === text && /[a-z]{3,}\s[a-z]{3,}/i.test(text));
    // Product names and `{{page}} · Product` patterns are the same in both languages on purpose.
    const allowed = new Set(['common.product', 'common.pageTitle']);
    expect(untranslated.map(([key]) => key).filter((key) => !allowed.has(key))).toEqual([]);
  });

  it('describe the model timeout as the longest silence allowed, not a whole turn’s time (worker/llm/idle-watch.ts)', () => {
    expect(llmEn.timeoutHint).toMatch(/longest the model may stay silent/);
    expect(llmEn.timeoutHint).toMatch(/between its pieces/);
    expect(llmZh.timeoutHint).toMatch(/沉默的最长时间/);
  });
});
