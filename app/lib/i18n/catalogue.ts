/**
 * The shape of the message catalogue and the keys it has. `en.ts` is the reference; every other
 * language is typed as `Messages`, so a key missing from a translation (or a key the code uses
 * that no catalogue has) fails the type check, not the person reading the page.
 */
import type { en } from './en.ts';
import type { workbenchEn } from './en/workbench.ts';
import type { workbenchDetails } from './en/workbench-details.ts';
import type { semanticDiff } from './en/semantic-diff.ts';
import type { diffView } from './en/diff-view.ts';
import type { issues } from './en/issues.ts';
import type { pageWords } from './en/page-words.ts';
import type { graph, workflowPage } from './en/graph.ts';
import type { llm } from './en/llm.ts';
import type { history } from './en/history.ts';
import type { assets, assetsPage, diff } from './en/assets.ts';
import type { agents, agentsPage } from './en/agents.ts';
import type { importing } from './en/importing.ts';

/**
 * The areas only some pages load, added by `addWords` where they are shown: the Workbench's
 * (`workbench-words.ts`), the package validation issues' (`issue-words.ts`), the parts loaded after
 * a first paint (`page-words.ts`), the graph's and workflow editor's (`graph-words.ts`), the AI
 * settings' (`llm-words.ts`), the history page's (`history-words.ts`), the agents' and assets' pages'
 * (`agent-words.ts`, `asset-words.ts`) and importing's (`import-words.ts`).
 */
interface LazyAreas {
  workbench: typeof workbenchEn;
  workbenchDetails: typeof workbenchDetails;
  semanticDiff: typeof semanticDiff;
  diffView: typeof diffView;
  issues: typeof issues;
  pageWords: typeof pageWords;
  graph: typeof graph;
  workflowPage: typeof workflowPage;
  llm: typeof llm;
  history: typeof history;
  diff: typeof diff;
  agents: typeof agents;
  agentsPage: typeof agentsPage;
  assets: typeof assets;
  assetsPage: typeof assetsPage;
  importing: typeof importing;
}
export type LazyArea = keyof LazyAreas;

/** The whole English catalogue: what every page loads, and the areas added where they are shown. */
type English = typeof en & LazyAreas;

type Strings<T> = { [K in keyof T]: T[K] extends string ? string : Strings<T[K]> };

/** Every catalogue has exactly the English catalogue's keys, each a string. */
export type Messages = Strings<English>;

type Leaves<T, Prefix extends string = ''> = {
  [K in keyof T & string]: T[K] extends string ? `${Prefix}${K}` : Leaves<T[K], `${Prefix}${K}.`>;
}[keyof T & string];

/** `files_one` / `files_other` are one key, `files`, chosen by `count` (i18next's plural rule). */
type WithoutPlural<K extends string> = K extends `${infer Base}_${'one' | 'other'}` ? Base : K;

/** A key `t()` accepts: a dotted path to a string of the English catalogue. */
export type MessageKey = WithoutPlural<Leaves<English>>;

/** Values put into `{{name}}` placeholders; `count` also picks the plural form. */
export type MessageValues = Record<string, string | number>;
