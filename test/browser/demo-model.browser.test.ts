/**
 * The offline demo model in a real browser, the way a newcomer meets it after `npm start`: the demo
 * author (profile: the `scripted-demo` preset, as seed-demo sets it up) opens the workbench from the
 * "with AI" links of a workflow, a step, an agent and an asset, in both modes. For each of the eight
 * combinations the page says it is the demo model, a message runs a turn whose tool lines arrive live
 * (no reload), the changes pane lists the staged files with their A/M badge, +/− counts and diff,
 * validation passes, a follow-up "make it shorter" in the same session stages version 2, Apply
 * writes it, and History shows the new revision.
 *
 * One browser, one signed-in page and one project for the whole file: the combinations run one after
 * another on the same demo project, each on its own target, so every Apply builds on the last.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, afterAll, expect, it } from 'vitest';
import { DEMO_USER, seedDemo } from '../../scripts/seed-demo.ts';
import { describeBrowser, screenshot, useModelSuite } from './harness.ts';

const WF = 'vendor-intake';
const STEP = 'capture-request';
const AGENT = 'procurement-analyst';
const ASSET = 'assets/templates/onboarding-summary.md';

type Scope = 'workflow' | 'agents' | 'assets';

interface Combo {
  name: string;
  /** The editor page with the AI entry links, and which links (testid) to click. */
  entry: (projectId: string) => string;
  links: string;
  mode: 'optimize' | 'create';
  targetType: string;
  /** Read tools the first turn must show besides builder.context.get. */
  reads: string[];
  /** [object key, action] the first version must stage. */
  files: Array<[string, 'A' | 'M']>;
  /** The file "make it shorter" rewrites; History is checked for it. */
  draft: string;
  /** Whose revision the draft's history row carries. */
  scope: Scope;
}

const workflowPage = (projectId: string, query = '') => `/projects/${projectId}/workflows/${WF}${query}`;

const COMBOS: Combo[] = [
  {
    name: 'step optimize',
    entry: (p) => workflowPage(p, `?node=${STEP}`),
    links: 'step-ai-links',
    mode: 'optimize',
    targetType: 'step',
    reads: ['builder.step.read'],
    files: [[`step:${WF}/${STEP}`, 'M']],
    draft: `step:${WF}/${STEP}`,
    scope: 'workflow',
  },
  {
    name: 'step create',
    entry: (p) => workflowPage(p, `?node=${STEP}`),
    links: 'step-ai-links',
    mode: 'create',
    targetType: 'step',
    reads: ['builder.workflow.read', 'builder.step.read'],
    files: [[`step:${WF}/quality-review`, 'A'], [`graph:${WF}`, 'M'], [`workflow:${WF}`, 'M']],
    draft: `step:${WF}/quality-review`,
    scope: 'workflow',
  },
  {
    name: 'agent optimize',
    entry: (p) => `/projects/${p}/agents/${AGENT}`,
    links: 'agent-ai-links',
    mode: 'optimize',
    targetType: 'agent',
    reads: ['builder.agent.read'],
    files: [[`agent:${AGENT}`, 'M']],
    draft: `agent:${AGENT}`,
    scope: 'agents',
  },
  {
    name: 'agent create',
    entry: (p) => `/projects/${p}/agents/${AGENT}`,
    links: 'agent-ai-links',
    mode: 'create',
    targetType: 'agent',
    reads: ['builder.agent.read'],
    files: [['agent:quality-reviewer', 'A']],
    draft: 'agent:quality-reviewer',
    scope: 'agents',
  },
  {
    name: 'asset optimize',
    entry: (p) => `/projects/${p}/assets?path=${encodeURIComponent(ASSET)}`,
    links: 'asset-ai-links',
    mode: 'optimize',
    targetType: 'asset',
    reads: ['builder.asset.read'],
    files: [[`asset:${ASSET}`, 'M']],
    draft: `asset:${ASSET}`,
    scope: 'assets',
  },
  {
    name: 'asset create',
    entry: (p) => `/projects/${p}/assets?path=${encodeURIComponent(ASSET)}`,
    links: 'asset-ai-links',
    mode: 'create',
    targetType: 'asset',
    reads: [],
    files: [['asset:assets/notes/review-checklist.md', 'A']],
    draft: 'asset:assets/notes/review-checklist.md',
    scope: 'assets',
  },
  {
    name: 'workflow optimize',
    entry: (p) => workflowPage(p),
    links: 'workflow-ai-links',
    mode: 'optimize',
    targetType: 'workflow',
    reads: ['builder.workflow.read'],
    files: [[`workflow:${WF}`, 'M']],
    draft: `workflow:${WF}`,
    scope: 'workflow',
  },
  {
    name: 'workflow create',
    entry: (p) => workflowPage(p),
    links: 'workflow-ai-links',
    mode: 'create',
    targetType: 'workflow',
    reads: [],
    files: [
      ['workflow:review-cycle', 'A'],
      ['graph:review-cycle', 'A'],
      ['step:review-cycle/prepare', 'A'],
      ['step:review-cycle/review', 'A'],
      ['step:review-cycle/close', 'A'],
    ],
    draft: 'workflow:review-cycle',
    scope: 'workflow',
  },
];

const ACTION_WORDS = { A: 'added', M: 'modified' } as const;

const testids = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);

/** Sends a message from the composer and waits for that turn (the `n`th, 0-based) to finish. */
async function sendAndFinish(page: Page, message: string, n: number) {
  await page.getByLabel('Message', { exact: true }).fill(message);
  await page.getByTestId('composer-send').click();
  const turn = testids(page, 'turn').nth(n);
  await turn.locator('[data-testid="turn-ending"]').waitFor({ timeout: 30_000 });
  expect(await turn.getByTestId('turn-ending').getAttribute('data-type')).toBe('finished');
  return turn;
}

/** The tool lines of one turn: [name, state] in the order they ran. */
function toolLines(turn: ReturnType<Page['locator']>) {
  return turn
    .locator('[data-testid="tool-line"]')
    .evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-name'), r.getAttribute('data-state')] as const));
}

/** "workflow 4, agents 1, assets 2" (the workflow part only when the session has one). */
function revisionsOf(text: string): Partial<Record<Scope, number>> {
  const out: Partial<Record<Scope, number>> = {};
  for (const [, scope, n] of text.matchAll(/(workflow|agents|assets) (\d+)/g)) out[scope as Scope] = Number(n);
  return out;
}

describeBrowser('the demo model in the workbench (browser)', () => {
  const started = useModelSuite();
  let context: BrowserContext;
  let page: Page;
  let projectId: string;

  beforeAll(async () => {
    const { suite, model } = started;
    const base = suite.product.url;
    // As `npm start` does: the demo author's AI profile is the scripted-demo preset on the local server.
    ({ projectId } = await seedDemo(base, { scriptedModelUrl: model.url }));
    context = await suite.newContext();
    const login = await context.request.post(`${base}/api/auth/login`, {
      data: { email: DEMO_USER.email, password: DEMO_USER.password },
      headers: { origin: base },
    });
    expect(login.status()).toBe(200);
    page = await context.newPage();
  });

  afterAll(async () => {
    await context?.close();
  });

  async function aiApplyCount(key: string): Promise<number> {
    const response = await context.request.get(`${started.suite.product.url}/api/projects/${projectId}/history?objectKey=${encodeURIComponent(key)}&limit=100`);
    const body = (await response.json()) as { data: { entries: Array<{ action: string }> } };
    expect(response.status()).toBe(200);
    return body.data.entries.filter((e) => e.action === 'ai_apply').length;
  }

  /** The staged text of one file, as the session's changes route answers. */
  async function stagedText(sessionId: string, key: string): Promise<string> {
    const response = await context.request.get(`${started.suite.product.url}/api/projects/${projectId}/ai/sessions/${sessionId}/changes`);
    const body = (await response.json()) as { data: { files: Array<{ key: string; after: string | null }> } };
    expect(response.status()).toBe(200);
    const file = body.data.files.find((f) => f.key === key);
    expect(file?.after, key).toEqual(expect.any(String));
    return file!.after!;
  }

  for (const combo of COMBOS) {
    it(`${combo.name}: opened from its AI link, shows the demo label, live tool lines, A/M files with diffs, passes validation, stages version 2 on "make it shorter", applies it and lists it in History`, { timeout: 120_000 }, async () => {
      // ---- Open the workbench the way a user does: the "with AI" link on the target's editor page.
      await page.goto(combo.entry(projectId));
      const link = page.locator(`[data-testid="${combo.links}"] [data-testid="ai-workbench-link"][data-mode="${combo.mode}"]`);
      await link.click();
      await page.waitForURL(/\/builder\/[^/]+\/ai-workbench\?/);
      await page.locator('[data-testid="workbench"][data-phase="none"]').waitFor();
      expect(await page.getByTestId('badge-target-type').getAttribute('data-value')).toBe(combo.targetType);
      expect(await page.getByTestId('badge-mode').getAttribute('data-value')).toBe(combo.mode);

      // ---- The page says the answers come from the scripted demo model, with a way to a real one.
      const label = page.getByTestId('demo-model-badge');
      await label.waitFor();
      expect(await label.getAttribute('data-model')).toBe('scripted-demo');
      expect(await label.textContent()).toContain('Demo model');
      expect(await label.getByTestId('demo-model-settings').getAttribute('href')).toBe('/settings/ai');

      // ---- First message: tool lines arrive over the live connection, the page is never reloaded.
      await page.evaluate(() => ((window as unknown as { sameLoad: boolean }).sameLoad = true));
      const first = await sendAndFinish(page, 'Please improve this.', 0);
      expect(await page.evaluate(() => (window as unknown as { sameLoad?: boolean }).sameLoad)).toBe(true);
      const lines = await toolLines(first);
      const names = lines.map(([name]) => name);
      expect(names[0]).toBe('builder.context.get');
      for (const name of combo.reads) expect(names).toContain(name);
      expect(names.slice(-2)).toEqual(['builder.change.stage', 'builder.change.validate']);
      expect(lines.filter(([, state]) => state !== 'ok')).toEqual([]);
      expect(await first.getByTestId('message-assistant').textContent()).toContain('Staged');

      // ---- The changes pane: each file with its A/M badge (a letter and words, not colour only), counts and diff.
      await page.locator('[data-testid="changes-version"][data-version="1"]').waitFor();
      // The added lines are counted in the unified text: one click picks that view for the whole
      // page (past three files the pane folds them, so the first file is unfolded for its toggle,
      // as a reader would: by its summary).
      const firstFile = page.locator(`[data-testid="changed-file"][data-key="${combo.files[0]![0]}"]`);
      const firstOpen = () => firstFile.locator('details').evaluate((details) => (details as HTMLDetailsElement).open);
      if (!(await firstOpen())) await firstFile.locator('summary').click();
      await firstFile.getByTestId('diff-mode-text').click();
      for (const [key, action] of combo.files) {
        const file = page.locator(`[data-testid="changed-file"][data-key="${key}"]`);
        await file.waitFor();
        expect(await file.getAttribute('data-action'), key).toBe(action);
        const summary = (await file.locator('summary').textContent()) ?? '';
        expect(summary).toContain(action);
        expect(summary).toContain(`${ACTION_WORDS[action]}:`);
        const diff = file.getByTestId('file-diff');
        const added = Number((await diff.getByTestId('diff-added').textContent())?.replace('+', ''));
        expect(added, key).toBeGreaterThan(0);
        expect(await diff.getByTestId('diff-removed').textContent()).toMatch(/^−\d+$/);
        expect(await diff.locator('[data-testid="file-patch"] .line.add').count(), key).toBe(added);
      }
      await page.locator('[data-testid="validation-status"][data-valid="true"]').waitFor();

      // ---- A follow-up in the same session: a second, shorter version, validated again.
      const draftText = () => page.locator(`[data-testid="changed-file"][data-key="${combo.draft}"] [data-testid="file-patch"]`).textContent();
      const firstPatch = (await draftText()) ?? '';
      const sessionId = await page.getByTestId('workbench').getAttribute('data-session-id');
      const firstDraft = await stagedText(sessionId!, combo.draft);
      const second = await sendAndFinish(page, 'make it shorter', 1);
      const secondNames = (await toolLines(second)).map(([name]) => name);
      expect(secondNames).toContain('builder.change.stage');
      expect(secondNames).toContain('builder.change.validate');
      await page.locator('[data-testid="changes-version"][data-version="2"]').waitFor();
      await page.locator('[data-testid="validation-status"][data-valid="true"]').waitFor();
      await expect.poll(draftText).not.toBe(firstPatch);
      // The file the reader opened stayed open through the new version and its validation.
      expect(await firstOpen()).toBe(true);
      expect((await stagedText(sessionId!, combo.draft)).length).toBeLessThan(firstDraft.length);
      if (combo.name === 'step optimize') {
        await page.evaluate(() => window.scrollTo(0, 0));
        await screenshot(page, 'workbench-demo-model.png');
      }

      // ---- Apply version 2: the new revisions are reported and nothing is staged any more.
      const before = await aiApplyCount(combo.draft);
      const apply = page.getByTestId('apply-button');
      await expect.poll(() => apply.isEnabled()).toBe(true);
      expect(await apply.textContent()).toContain('Apply version 2');
      await apply.click();
      await page.getByTestId('apply-result').waitFor();
      const revisions = revisionsOf((await page.getByTestId('apply-revisions').textContent()) ?? '');
      await page.getByTestId('changes-empty').waitFor();

      // ---- History lists the applied draft as an AI apply, at the new revision.
      await page.goto(`/projects/${projectId}/history?objectKey=${encodeURIComponent(combo.draft)}`);
      await page.getByTestId('history-table').waitFor();
      const entries = page.locator(`[data-testid="history-entry"][data-object-key="${combo.draft}"][data-action="ai_apply"]`);
      await expect.poll(() => entries.count()).toBe(before + 1);
      const newest = (await entries.first().getByTestId('history-revisions').textContent()) ?? '';
      const expected = revisions[combo.scope];
      expect(expected, `the apply result names the ${combo.scope} revision`).toEqual(expect.any(Number));
      expect(newest).toMatch(new RegExp(`→ ${expected}$`));
    });
  }
});
