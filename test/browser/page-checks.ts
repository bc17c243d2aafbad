/**
 * What the route walks check on each page: which sentences of the English catalogue show (a page
 * read in Chinese must show none) and which WCAG 2 A/AA rules axe-core finds broken.
 */
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { en } from '../../app/lib/i18n/en.ts';
import { zh } from '../../app/lib/i18n/zh.ts';
import * as enGraph from '../../app/lib/i18n/en/graph.ts';
import * as zhGraph from '../../app/lib/i18n/zh/graph.ts';
import { llm as enLlm } from '../../app/lib/i18n/en/llm.ts';
import { llm as zhLlm } from '../../app/lib/i18n/zh/llm.ts';
import { history as enHistory } from '../../app/lib/i18n/en/history.ts';
import { history as zhHistory } from '../../app/lib/i18n/zh/history.ts';
import * as enAssets from '../../app/lib/i18n/en/assets.ts';
import * as zhAssets from '../../app/lib/i18n/zh/assets.ts';
import * as enAgents from '../../app/lib/i18n/en/agents.ts';
import * as zhAgents from '../../app/lib/i18n/zh/agents.ts';
import { importing as enImporting } from '../../app/lib/i18n/en/importing.ts';
import { importing as zhImporting } from '../../app/lib/i18n/zh/importing.ts';

type Tree = { readonly [key: string]: string | Tree };

/**
 * The words of the pages outside the Workbench: the catalogue every page loads and the areas the
 * pages' own modules add where they are shown (app/lib/i18n/*-words.ts), in English and Chinese.
 */
export const PAGES_ENGLISH = { ...en, ...enGraph, llm: enLlm, history: enHistory, ...enAssets, ...enAgents, importing: enImporting };
const PAGES_CHINESE = { ...zh, ...zhGraph, llm: zhLlm, history: zhHistory, ...zhAssets, ...zhAgents, importing: zhImporting };

/**
 * English catalogue leaves of two words or more that a Chinese page must not show. Text with a
 * placeholder is cut at it and its longest literal piece kept (so "Apply version {{n}}" still
 * betrays itself as "Apply version"); leaves the Chinese catalogue words the same are left out.
 */
function englishSentences(english: Tree, chinese: Tree, out: Set<string> = new Set()): Set<string> {
  for (const [key, value] of Object.entries(english)) {
    const other = chinese[key];
    if (typeof value !== 'string') {
      englishSentences(value, (other ?? {}) as Tree, out);
      continue;
    }
    if (value === other) continue;
    const chineseText = typeof other === 'string' ? other : '';
    const pieces = value
      .replace(/<[^>]+>/g, '\n')
      .split(/\{\{[^}]*\}\}|\n/)
      .map((piece) => piece.trim().replace(/^[\s,.:;·—–(]+|[\s,:;·—–(]+$/g, ''));
    for (const piece of pieces) {
      // A piece the Chinese text keeps as it is (a command, a product name) says nothing.
      if (/[A-Za-z]{3,}\s+[A-Za-z]{2,}/.test(piece) && !chineseText.includes(piece)) out.add(piece);
    }
  }
  return out;
}

// The product's name is the same in both languages.
export const ENGLISH_SENTENCES = [...englishSentences(PAGES_ENGLISH as unknown as Tree, PAGES_CHINESE as unknown as Tree)].filter((text) => !text.startsWith('CrewAgent'));

/**
 * Where the page shows content rather than interface words: the package's own text in an editor,
 * and the conversation's messages (the person's words, the model's answers). English there is fine.
 */
const CONTENT = ['.cm-content', '[data-testid="message-user"]', '[data-testid="message-assistant"]'];

/** Everything a reader (or a screen reader) gets from the page, content left out: text, labels, titles, placeholders, the tab title. */
async function shownText(page: Page): Promise<string> {
  return page.evaluate((content) => {
    let text = document.body.innerText;
    for (const element of document.querySelectorAll<HTMLElement>(content.join(','))) text = text.replace(element.innerText, '\n');
    const attributes = [...document.querySelectorAll('[aria-label],[title],[placeholder],[alt]')].map((el) =>
      ['aria-label', 'title', 'placeholder', 'alt'].map((name) => el.getAttribute(name) ?? '').join('\n'),
    );
    return `${text}\n${attributes.join('\n')}\n${document.title}`;
  }, CONTENT);
}

/** The English catalogue sentences the page shows, each with the text around it (to find it by). */
export async function englishOn(page: Page): Promise<string[]> {
  const shown = await shownText(page);
  return ENGLISH_SENTENCES.filter((sentence) => shown.includes(sentence)).map((sentence) => {
    const at = shown.indexOf(sentence);
    return `${sentence} ⟨${shown.slice(Math.max(0, at - 40), at + sentence.length + 40).replace(/\s+/g, ' ')}⟩`;
  });
}

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export interface AxeFinding {
  rule: string;
  nodes: string[];
}

/** Parts of a page left out of the axe check: none; a selector here would need its reason beside it. */
export const AXE_ELSEWHERE: string[] = [];

/** axe-core's WCAG 2 A and AA rules on the whole page: each broken rule with the elements that break it. */
export async function axeViolations(page: Page, exclude: string[] = AXE_ELSEWHERE): Promise<AxeFinding[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.addScriptTag({ path: AXE });
  return page.evaluate(async (excluded) => {
    type Result = { violations: Array<{ id: string; nodes: Array<{ target: unknown[]; failureSummary?: string }> }> };
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: object): Promise<Result> } }).axe;
    const context = excluded.length > 0 ? { include: [document], exclude: excluded.map((selector) => [selector]) } : document;
    const result = await axe.run(context, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } });
    return result.violations.map((v) => ({
      rule: v.id,
      nodes: v.nodes.map((n) => `${JSON.stringify(n.target)} ${(n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 160)}`),
    }));
  }, exclude);
}
