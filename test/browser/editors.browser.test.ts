/**
 * The Builder's editors in a real browser: import the branching test package through the projects
 * page, draw its graph, edit a step in CodeMirror with live validation, save, read the change in
 * history and revert it (and find the whole-file restore offered once a later revision edited it),
 * create assets with the path checked as you type, and follow an AI workbench entry point to its
 * parsed target.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadFixture } from '../fixtures/packages.ts';
import { describeBrowser, newUser, screenshot, startSuite, type Suite, type TestUser } from './harness.ts';

/** The repository's single-workflow test package (course-placement), path → text. */
const PACKAGE = loadFixture('branching');
const NODE_COUNT = 6;
const STEP_ID = 'collect-background';

/** The test package as a .bmad zip in a temp folder. */
async function packageZip(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bmad-upload-'));
  const file = path.join(dir, 'course-placement.bmad');
  await writeFile(file, zipSync(Object.fromEntries([...PACKAGE].map(([name, text]) => [name, strToU8(text)]))));
  return file;
}

/** Registers through the API with the context's own request client, so the browser is signed in. */
async function signUp(context: BrowserContext, baseUrl: string, label: string): Promise<TestUser> {
  const user = newUser(label);
  const response = await context.request.post(`${baseUrl}/api/auth/register`, { data: user, headers: { origin: baseUrl } });
  expect(response.status()).toBe(201);
  return user;
}

/** Replaces the whole text of the CodeMirror editor inside `testid`, the way a paste would. */
async function replaceEditorText(page: Page, testid: string, text: string): Promise<void> {
  const content = page.getByTestId(testid).locator('.cm-content');
  await content.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.insertText(text);
}

/** The stored markdown of a step, read through the API with the browser's own sign-in. */
async function storedStep(context: BrowserContext, baseUrl: string, projectId: string, nodeId: string): Promise<string> {
  const response = await context.request.get(`${baseUrl}/api/projects/${projectId}/workflows/main/steps/${nodeId}`);
  const body = (await response.json()) as { data: { step: { markdown: string } } };
  return body.data.step.markdown;
}

describeBrowser('editors (browser)', () => {
  let suite: Suite;

  beforeAll(async () => {
    suite = await startSuite();
  });

  afterAll(async () => {
    await suite?.close();
  });

  it('imports a package, edits a step with live validation, reverts it from history, creates assets and opens the AI workbench', async () => {
    const { product } = suite;
    const context = await suite.newContext();
    const page = await context.newPage();
    await signUp(context, product.url, 'Editor');

    // Import the test package through the file picker on the projects page.
    await page.goto('/projects');
    await page.getByTestId('import-file').setInputFiles(await packageZip());
    await page.getByTestId('import-submit').click();
    await page.getByTestId('import-preview').waitFor();
    await page.getByTestId('import-confirm').click();
    await page.getByTestId('import-done').waitFor();
    expect(await page.getByTestId('import-done').textContent()).toContain('course-placement');

    // A second import of the same package: its preview says the free name it would take. A taken
    // name typed after the preview is refused on confirm, with a free name offered; cancelled here.
    await page.getByTestId('import-file').setInputFiles(await packageZip());
    await page.getByTestId('import-submit').click();
    await page.getByTestId('import-preview').waitFor();
    expect(await page.getByTestId('import-preview-name').textContent()).toContain('course-placement (2)');
    await page.getByTestId('import-preview-name-taken').waitFor();
    await page.getByTestId('import-name').fill('course-placement');
    await page.getByTestId('import-confirm').click();
    await page.getByTestId('import-name-conflict').waitFor();
    expect(await page.getByTestId('import-use-suggestion').textContent()).toContain('course-placement (2)');
    await page.getByTestId('import-cancel').click();

    // Open the first import: the overview validates it and links to the workflow.
    const projectLink = page.getByTestId('project-item').filter({ hasText: 'course-placement' }).getByRole('link').first();
    await projectLink.click();
    await page.getByTestId('validation-summary').waitFor();
    expect(await page.getByTestId('validation-counts').getAttribute('data-errors')).toBe('0');
    await page.getByTestId('workflow-link').first().click();

    // The graph: six nodes, the decision's default edge marked.
    await page.getByTestId('workflow-graph').waitFor();
    await expect.poll(() => page.getByTestId('graph-node').count()).toBe(NODE_COUNT);
    expect(await page.locator('[data-testid="graph-node"][data-node-type="decision"]').count()).toBe(1);
    expect(await page.locator('[data-testid="graph-node"][data-node-type="end"]').count()).toBe(1);
    // Edge labels are drawn after the nodes are measured, and again when the validators arrive.
    await expect.poll(() => page.locator('.svelte-flow__edge-label', { hasText: 'default' }).count()).toBe(1);
    const revisionBefore = Number(await page.getByTestId('workflow-revision').getAttribute('data-revision'));

    // Click a step: the inspector opens with its file in CodeMirror.
    await page.locator(`[data-testid="graph-node"][data-node-id="${STEP_ID}"]`).click();
    await page.getByTestId('step-inspector').waitFor();
    expect(await page.getByTestId('step-title').inputValue()).toBe('Collect background');
    // CodeMirror renders only the lines in view, so the full text is read from the package itself.
    const original = PACKAGE.get('steps/01-collect-background.md')!;
    await page.getByTestId('step-editor').locator('.cm-line', { hasText: '## Goal' }).waitFor();
    const projectId = /\/projects\/([^/]+)\//.exec(page.url())![1]!;
    expect(await storedStep(context, product.url, projectId, STEP_ID)).toBe(original);

    // Deleting the Goal section shows a live problem; restoring it clears it.
    const missingGoal = page.locator('[data-testid="step-live-issues"] [data-code="STEP_MISSING_GOAL"]');
    const withoutGoal = original.replace(/## Goal\n\nLearn[^\n]*\n\n/, '');
    expect(withoutGoal).not.toContain('## Goal');
    await replaceEditorText(page, 'step-editor', withoutGoal);
    await missingGoal.waitFor();
    expect(await page.locator(`[data-testid="graph-node"][data-node-id="${STEP_ID}"] [data-testid="node-issues"]`).count()).toBe(0);
    await replaceEditorText(page, 'step-editor', original);
    await missingGoal.waitFor({ state: 'detached' });
    await page.getByTestId('step-live-issues-empty').waitFor();

    // A real edit, saved: the workflow revision goes up.
    await replaceEditorText(page, 'step-editor', original.replace('3. Write both answers', '3. Confirm the goal in one sentence.\n4. Write both answers'));
    await page.getByTestId('step-save').click();
    await page.getByTestId('step-saved').waitFor();
    await expect.poll(async () => Number(await page.getByTestId('workflow-revision').getAttribute('data-revision'))).toBe(revisionBefore + 1);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'workflow.png');

    // The AI workbench entry point of the selected step carries its target.
    const stepPage = page.url();
    await page.locator('[data-testid="step-ai-links"] [data-mode="optimize"]').click();
    await page.waitForURL(/\/builder\/[^/]+\/ai-workbench\?/);
    await page.getByTestId('workbench-badges').waitFor();
    expect(await page.getByTestId('badge-target-type').getAttribute('data-value')).toBe('step');
    expect(await page.getByTestId('badge-target-id').getAttribute('data-value')).toBe(STEP_ID);
    expect(await page.getByTestId('badge-workflow').getAttribute('data-value')).toBe('main');
    expect(await page.getByTestId('badge-mode').getAttribute('data-value')).toBe('optimize');
    // The same route explains an address it cannot use.
    const workbench = page.url();
    await page.goto(`/builder/${projectId}/ai-workbench?targetType=thing&workflowId=main`);
    await page.getByTestId('workbench-query-error').waitFor();
    expect(await page.locator('[data-testid="workbench-problem"]').evaluateAll((items) => items.map((i) => i.getAttribute('data-field')))).toEqual([
      'targetType',
      'mode',
    ]);
    await page.goto('/builder/no-such-project/ai-workbench?targetType=agent&mode=create');
    await page.getByTestId('workbench-project-error').waitFor();
    await page.goto(workbench);
    await page.getByTestId('workbench-badges').waitFor();
    await page.getByTestId('workbench-back').click();
    await page.waitForURL(stepPage);
    await page.getByTestId('step-inspector').waitFor();

    // History: the step's update with its diff, then revert it.
    await page.getByTestId('tab-history').click();
    const entry = page.locator(`[data-testid="history-entry"][data-object-key="step:main/${STEP_ID}"]`).first();
    await entry.waitFor();
    expect(await entry.getAttribute('data-action')).toBe('update');
    expect(await entry.getByTestId('history-revisions').textContent()).toBe(`${revisionBefore} → ${revisionBefore + 1}`);
    await entry.getByTestId('history-open').click();
    await page.getByTestId('diff-view').waitFor();
    await screenshot(page, 'history-diff.png');
    expect(await page.getByTestId('diff-added').textContent()).toBe('+2');
    expect(await page.getByTestId('diff-removed').textContent()).toBe('−1');
    expect(await page.locator('[data-testid="diff-line"][data-kind="add"]', { hasText: 'Confirm the goal' }).count()).toBe(1);
    // Nothing edited the step since: a revert puts it back as it was, and no whole-file restore is offered.
    expect(await page.getByTestId('history-restore-before').count()).toBe(0);
    await page.getByTestId('history-revert').click();
    await page.getByTestId('history-revert-confirm').click();
    await page.getByTestId('history-reverted').waitFor();
    await page.locator(`[data-testid="history-entry"][data-action="revert"][data-object-key="step:main/${STEP_ID}"]`).waitFor();

    // The update again: the revert is a later revision of the step, so restoring the whole file from
    // before the update is an explicit action there, naming what it would discard (no refused revert needed).
    await page.locator(`[data-testid="history-entry"][data-action="update"][data-object-key="step:main/${STEP_ID}"]`).first().getByTestId('history-open').click();
    await page.getByTestId('history-restore-before').waitFor();
    expect(await page.getByTestId('history-restore-before').textContent()).toContain(`discarding revision ${revisionBefore + 2}'s edits`);

    // The reverted step is back to the imported text, and so is the inspector.
    expect(await storedStep(context, product.url, projectId, STEP_ID)).toBe(original);
    await page.goto(stepPage);
    await page.getByTestId('step-inspector').waitFor();
    await page.getByTestId('step-editor').locator('.cm-line', { hasText: '3. Write both answers' }).waitFor();
    expect(await page.getByTestId('step-editor').locator('.cm-line', { hasText: 'Confirm the goal' }).count()).toBe(0);

    // Someone else saves first: the save is refused as stale, the text stays, and after a reload it saves.
    const bumped = await context.request.put(`${product.url}/api/projects/${projectId}/workflows/main/workflow-md`, {
      data: { content: PACKAGE.get('workflow.md')! },
      headers: { origin: product.url },
    });
    expect(bumped.status()).toBe(200);
    await replaceEditorText(page, 'step-editor', original.replace('## Instructions\n', '## Instructions\n\n0. Greet the user.\n'));
    await page.getByTestId('step-save').click();
    await page.getByTestId('step-conflict').waitFor();
    expect(await page.getByTestId('step-conflict').textContent()).toContain('Someone saved a newer version');
    await page.getByTestId('step-editor').locator('.cm-line', { hasText: '0. Greet the user.' }).waitFor();
    await page.getByTestId('step-reload').click();
    await page.getByTestId('step-conflict').waitFor({ state: 'detached' });
    await page.getByTestId('step-editor').locator('.cm-line', { hasText: '0. Greet the user.' }).waitFor();
    await page.getByTestId('step-save').click();
    await page.getByTestId('step-saved').waitFor();
    expect(await storedStep(context, product.url, projectId, STEP_ID)).toContain('0. Greet the user.');

    // Assets: the imported template renders; a new asset's path is checked as it is typed.
    await page.getByTestId('tab-assets').click();
    await page.locator('[data-testid="asset-file"][data-path="assets/templates/study-plan.md"]').click();
    await page.getByTestId('asset-editor').waitFor();
    await page.getByTestId('asset-preview-tab').click();
    expect(await page.getByTestId('asset-preview').locator('h1').textContent()).toBe('Study plan');

    await page.getByTestId('new-asset-path').fill('notes/todo.md');
    await page.getByTestId('new-asset-path-error').waitFor();
    expect(await page.getByTestId('new-asset-path-error').textContent()).toContain('under the assets/ folder');
    expect(await page.getByTestId('new-asset-path-hint').textContent()).toContain('Start the path with assets/');
    expect(await page.getByTestId('new-asset-submit').isDisabled()).toBe(true);
    await page.getByTestId('new-asset-path').fill('assets/notes/todo.md');
    await page.getByTestId('new-asset-path-ok').waitFor();
    await page.getByTestId('new-asset-content').fill('# To do\n\n- Review the study plan template.\n');
    await page.getByTestId('new-asset-submit').click();
    await page.locator('[data-testid="asset-editor"][data-path="assets/notes/todo.md"]').waitFor();
    await page.locator('[data-testid="asset-file"][data-path="assets/notes/todo.md"]').waitFor();

    // A viewer sees the same pages read-only: no save, delete, revert or AI controls.
    const viewerContext = await suite.newContext();
    const viewer = await signUp(viewerContext, product.url, 'Viewer');
    const invited = await context.request.post(`${product.url}/api/projects/${projectId}/members`, {
      data: { email: viewer.email, role: 'viewer' },
      headers: { origin: product.url },
    });
    expect(invited.status()).toBe(201);
    const invitationId = ((await invited.json()) as { data: { invitation: { id: string } } }).data.invitation.id;
    const accepted = await viewerContext.request.post(`${product.url}/api/users/me/invitations/${invitationId}/accept`, { data: {}, headers: { origin: product.url } });
    expect(accepted.status()).toBe(200);
    const viewerPage = await viewerContext.newPage();
    await viewerPage.goto(new URL(stepPage).pathname + new URL(stepPage).search);
    await viewerPage.getByTestId('step-inspector').waitFor();
    expect(await viewerPage.getByTestId('step-editor').locator('.cm-content').getAttribute('contenteditable')).toBe('false');
    for (const control of ['step-save', 'step-ai-links', 'workflow-delete', 'workflow-rename', 'workflow-ai-links']) {
      expect(await viewerPage.getByTestId(control).count(), control).toBe(0);
    }
    await viewerPage.getByTestId('tab-history').click();
    await viewerPage.getByTestId('history-open').first().click();
    await viewerPage.getByTestId('diff-view').waitFor();
    expect(await viewerPage.getByTestId('history-revert').count()).toBe(0);
    await viewerPage.getByTestId('tab-assets').click();
    await viewerPage.getByTestId('asset-tree').waitFor();
    expect(await viewerPage.getByTestId('new-asset-form').count()).toBe(0);
    await viewerPage.getByTestId('tab-agents').click();
    await viewerPage.getByTestId('agent-list-item').first().click();
    await viewerPage.getByTestId('agent-editor').waitFor();
    expect(await viewerPage.getByTestId('agent-save').count()).toBe(0);
    expect(await viewerPage.getByTestId('agent-delete').count()).toBe(0);
    await viewerContext.close();

    await context.close();
  });
  it('a new agent form says nothing before typing, counts every problem once touched, and sends nothing while one is left', async () => {
    const { product } = suite;
    const context = await suite.newContext();
    const page = await context.newPage();
    await signUp(context, product.url, 'Agents');
    const created = await context.request.post(`${product.url}/api/projects`, { data: { name: `Agents ${Date.now().toString(36)}` }, headers: { origin: product.url } });
    expect(created.status(), await created.text()).toBe(201);
    const projectId = ((await created.json()) as { data: { project: { id: string } } }).data.project.id;
    const storedAgents = async () => {
      const response = await context.request.get(`${product.url}/api/projects/${projectId}/agents`);
      return ((await response.json()) as { data: { agents: unknown[] } }).data.agents.length;
    };

    await page.goto(`/projects/${projectId}/agents`);
    await page.getByTestId('agent-editor').waitFor();
    // Untouched: no "valid" badge over an empty form, and no errors either.
    expect(await page.getByTestId('agent-badges').count()).toBe(0);
    expect(await page.locator('[data-testid="agent-form"] .field-error').count()).toBe(0);

    // One field typed: the badge counts every problem the draft still has, not only the typed field's.
    await page.getByTestId('agent-id').fill('writer');
    await page.getByTestId('agent-metadata-name').fill('Writer');
    await page.getByTestId('agent-metadata-name').blur();
    const errors = Number(await page.getByTestId('agent-badges').getAttribute('data-errors'));
    expect(errors).toBeGreaterThan(1);

    // Create is pressable and shows every problem; nothing is sent while one is left.
    expect(await page.getByTestId('agent-save').isDisabled()).toBe(false);
    await page.getByTestId('agent-save').click();
    await expect.poll(() => page.locator('[data-testid="agent-form"] .field-error').count()).toBeGreaterThan(1);
    expect(await page.getByTestId('agent-error').count()).toBe(0);
    expect(await storedAgents()).toBe(0);

    await context.close();
  });
});
