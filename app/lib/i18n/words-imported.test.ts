// An area of the catalogue that every page does not load is added by its `*-words.ts` module; a
// module that names one of its keys without importing that module could render the raw key (a
// page that reaches it before anything else added the area). Each file is read as source text.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { graph, workflowPage } from './en/graph.ts';
import { llm } from './en/llm.ts';
import { history } from './en/history.ts';
import { assets, assetsPage, diff } from './en/assets.ts';
import { agents, agentsPage } from './en/agents.ts';
import { importing } from './en/importing.ts';
import { pageWords } from './en/page-words.ts';

const APP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The areas whose users import the words themselves, with the module that adds each. (The
 * Workbench's areas are added by its routes' `+page.ts`, the validation issues' by `issue-text.ts`
 * with `import()`.)
 */
const AREAS: Record<string, { words: object; module: string }> = {
  graph: { words: graph, module: 'graph-words.ts' },
  workflowPage: { words: workflowPage, module: 'graph-words.ts' },
  llm: { words: llm, module: 'llm-words.ts' },
  history: { words: history, module: 'history-words.ts' },
  diff: { words: diff, module: 'history-words.ts' },
  agents: { words: agents, module: 'agent-words.ts' },
  agentsPage: { words: agentsPage, module: 'agent-words.ts' },
  assets: { words: assets, module: 'asset-words.ts' },
  assetsPage: { words: assetsPage, module: 'asset-words.ts' },
  importing: { words: importing, module: 'import-words.ts' },
  pageWords: { words: pageWords, module: 'page-words.ts' },
};

/** Whether `dotted` (a whole key, or a template's fixed start ending in `.`) is a path in `words`. */
function isKeyOf(words: object, dotted: string): boolean {
  const parts = dotted.split('.');
  const whole = parts.at(-1) !== '';
  let at: unknown = words;
  for (const part of whole ? parts : parts.slice(0, -1)) {
    if (typeof at !== 'object' || at === null) return false;
    const tree = at as Record<string, unknown>;
    // A plural key is named without its `_one` / `_other` ending.
    at = part in tree ? tree[part] : tree[`${part}_other`];
  }
  return whole ? typeof at === 'string' : typeof at === 'object' && at !== null;
}

/** The lazy areas whose keys `source` names: `'area.key'`, or a template `` `area.key.${…}` ``. */
function areasNamed(source: string): Set<string> {
  const named = new Set<string>();
  for (const [, area, rest] of source.matchAll(/['"`]([a-zA-Z]+)\.([a-zA-Z0-9_.]*?)(?=['"`]|\$\{)/g)) {
    const entry = AREAS[area!];
    if (entry && rest && isKeyOf(entry.words, rest)) named.add(area!);
  }
  return named;
}

async function appSources(): Promise<string[]> {
  const files = await readdir(APP, { recursive: true });
  return files
    .filter((file) => /\.(ts|svelte)$/.test(file) && !file.endsWith('.test.ts'))
    .filter((file) => !file.startsWith(`lib${path.sep}i18n${path.sep}`))
    .map((file) => path.join(APP, file));
}

describe('the areas added where they are shown', () => {
  it('are added by every module that names one of their keys', async () => {
    const missing: string[] = [];
    let users = 0;
    for (const file of await appSources()) {
      const source = await readFile(file, 'utf8');
      const named = areasNamed(source);
      if (named.size > 0) users += 1;
      for (const area of named) {
        const { module } = AREAS[area]!;
        const imported = new RegExp(`import ['"][^'"]*/i18n/${module.replace('.', '\\.')}['"]`).test(source);
        if (!imported) missing.push(`${path.relative(APP, file)}: ${area}.* without ${module}`);
      }
    }
    expect(missing).toEqual([]);
    // The scan finds the users it is meant to check (the canvas, the AI settings, the history page…).
    expect(users).toBeGreaterThan(20);
  });

  it('tell a key of an area from a file name or a plain word', () => {
    expect([...areasNamed(`t('graph.step.noFile'); t(\`llm.presets.\${id}.label\`)`)].sort()).toEqual(['graph', 'llm']);
    expect([...areasNamed(`const file = 'agents.json'; const other = 'assets.zip';`)]).toEqual([]);
    expect([...areasNamed(`t('importing.workflows', { count })`)]).toEqual(['importing']);
  });
});
