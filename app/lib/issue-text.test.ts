/**
 * Validation issues in the reader's language: the real validator's issues, rendered the way
 * IssueList, the import preview and the Workbench's validation status render them.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ISSUE_CODES, validateGraph } from '../../shared/bmad/index.ts';
import { asciiAssetPaths } from '../../shared/bmad-method/ascii-assets.ts';
import { issues as issuesEn } from './i18n/en/issues.ts';
import { issues as issuesZh } from './i18n/zh/issues.ts';
import { useLocale } from './i18n/i18n.svelte.ts';
import { issueText, issueWordsReady } from './issue-text.ts';

afterEach(() => useLocale('en'));
// The words load on first use (issue-text.ts); the tests read them once they are there.
beforeAll(() => issueWordsReady());

const graph = {
  schemaVersion: '1.1',
  entryNodeId: 'start',
  nodes: [
    { id: 'start', type: 'step', file: 'steps/a.md', title: '开始' },
    { id: 'choose', type: 'decision', file: 'steps/b.md', title: '选择' },
    { id: 'lost', type: 'step', file: 'steps/c.md', title: '迷路' },
    { id: 'done', type: 'end', file: 'steps/d.md', title: '结束' },
  ],
  edges: [
    { from: 'start', to: 'choose', label: '下一步' },
    { from: 'choose', to: 'done', label: '完成' },
    { from: 'lost', to: 'ghost', label: '?' },
  ],
};
const issues = validateGraph(JSON.stringify(graph)).issues;
const byCode = (code: string) => issues.find((i) => i.code === code)!;
/** Latin words of three letters or more: English left in a Chinese text (ids in quotes aside). */
const englishWords = (text: string) => text.replace(/“[^”]*”/g, '').match(/\b[A-Za-z]{3,}\b/g) ?? [];

describe('issueText', () => {
  it('gives an English reader the validator’s own words and hint', () => {
    const issue = byCode('GRAPH_DECISION_TOO_FEW_EDGES');
    expect(issueText(issue)).toEqual({ message: issue.message, hint: issue.hint });
  });

  it('says a graph’s issues in Chinese with their ids and counts', async () => {
    await useLocale('zh');
    expect(issueText(byCode('GRAPH_DECISION_TOO_FEW_EDGES'))).toEqual({
      message: '决策节点“choose”只有 1 条出线；决策至少需要 2 条。',
      hint: '添加另一个分支，或把节点类型改为“step”。',
    });
    expect(issueText(byCode('GRAPH_EDGE_UNKNOWN_NODE')).message).toBe('连线 2 的起点或终点“ghost”不是节点。');
    expect(issueText(byCode('GRAPH_MULTIPLE_START_NODES')).message).toBe('节点“lost”没有进入的连线，因此成了第二个起点。');
    for (const issue of issues) {
      const words = issueText(issue);
      expect(englishWords(words.message), words.message).toEqual([]);
      expect(englishWords(words.hint ?? ''), words.hint).toEqual([]);
    }
  });

  it('names a missing field and an asset renamed on import', async () => {
    await useLocale('zh');
    const missing = validateGraph(JSON.stringify({ ...graph, edges: [{ from: 'start', to: 'choose' }] })).issues.find((i) => i.code === 'SCHEMA_REQUIRED')!;
    expect(issueText(missing).message).toBe('缺少必填字段：edges[0].label。');
    const renamed = asciiAssetPaths({ manifestJson: null, agentsJson: null, workflows: [], assets: [{ path: 'assets/说明.md', content: '# 说明' }] }).issues[0]!;
    expect(renamed.code).toBe('ASSET_RENAMED');
    expect(issueText(renamed).message).toMatch(/^assets\/说明\.md 已改名为 assets\/[\w.-]+：资源路径只能使用/);
  });

  it('falls back to the code’s meaning when an issue does not carry its values', async () => {
    await useLocale('zh');
    expect(issueText({ code: 'GRAPH_NODE_UNREACHABLE', message: 'Node "x" cannot be reached from the entry.' })).toEqual({
      message: '从入口无法到达该节点。',
      hint: '从前面的节点连线到它，或删除它。',
    });
    // An API error code used as an issue code comes from the error table.
    expect(issueText({ code: 'AI_VALIDATION_FAILED', message: 'English' }).message).not.toBe('English');
  });

  it('has Chinese words for every issue code', () => {
    expect(Object.keys(issuesEn.codes).sort()).toEqual(Object.keys(ISSUE_CODES).sort());
    for (const code of Object.keys(ISSUE_CODES)) expect(issuesZh.codes[code as keyof typeof issuesZh.codes]).toMatch(/\p{Script=Han}/u);
  });
});

describe('issueText before the issue words have loaded', () => {
  it('is never empty: a fresh module shows the validator’s words, then the reader’s once loaded', async () => {
    const { vi } = await import('vitest');
    vi.resetModules();
    const fresh = await import('./issue-text.ts');
    const i18n = await import('./i18n/i18n.svelte.ts');
    await i18n.useLocale('zh');
    try {
      const issue = { code: 'GRAPH_EDGE_UNKNOWN_NODE', message: 'Edge 2 names a node that does not exist.', params: { index: 2, node: 'ghost' } };
      expect(fresh.issueText(issue).message).toBe(issue.message);
      await fresh.issueWordsReady();
      expect(fresh.issueText(issue).message).toMatch(/\p{Script=Han}/u);
    } finally {
      await i18n.useLocale('en');
    }
  });
});
