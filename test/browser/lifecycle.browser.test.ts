/**
 * A session's lifecycle in a real browser, owner and viewer side by side: Shift+Enter adds a line
 * and Enter sends; "End session" asks first and says what is lost; the owner applies and the
 * viewer sees "Applied by NAME as revision N" live, with a link to the revision in history; the
 * Sessions page lists the applied session and opens it read-only (no composer, no Apply, the final
 * diff); on a 390×844 phone the workbench is tabs, a message is sent with Enter and the diff is
 * seen on the Changes tab; ending the session there returns to the page the person came from.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { DEMO_USER, DEMO_VIEWER, seedDemo } from '../../scripts/seed-demo.ts';
import { messageText, type Reply, type Scenario } from '../support/scripted-openai/index.ts';
import { describeBrowser, screenshot, useModelSuite } from './harness.ts';

const MODEL = 'lifecycle-model';
const WF = 'vendor-intake';
const STEP = 'quick-check';
const STEP_KEY = `step:${WF}/${STEP}`;

async function signIn(context: BrowserContext, baseUrl: string, user: { email: string; password: string }): Promise<void> {
  const response = await context.request.post(`${baseUrl}/api/auth/login`, { data: { email: user.email, password: user.password }, headers: { origin: baseUrl } });
  expect(response.status()).toBe(200);
}

async function stepOf(context: BrowserContext, url: string): Promise<{ markdown: string; revision: number }> {
  const response = await context.request.get(url);
  const body = (await response.json()) as { data: { step: { markdown: string }; revision: number } };
  expect(response.status()).toBe(200);
  return { markdown: body.data.step.markdown, revision: body.data.revision };
}

const testids = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);

describeBrowser('session lifecycle (browser)', () => {
  const started = useModelSuite();

  it('sends with Enter, confirms End session, shows the apply to a viewer, lists and reopens it read-only, and works on a phone', { timeout: 180_000 }, async () => {
    const { suite, model } = started;
    const base = suite.product.url;
    const { projectId } = await seedDemo(base);
    const stepUrl = `${base}/api/projects/${projectId}/workflows/${WF}/steps/${STEP}`;

    const ownerContext = await suite.newContext();
    await signIn(ownerContext, base, DEMO_USER);
    const saved = await ownerContext.request.put(`${base}/api/users/me/llm-profile`, {
      headers: { origin: base },
      data: { provider: 'openai-compatible', preset: 'custom', baseUrl: model.url, model: MODEL, apiKey: 'sk-lifecycle-key', timeoutSeconds: 60, contextWindow: 128_000 },
    });
    expect(saved.status()).toBe(200);

    // Each user message stages the step with one added line named in the message; the tool result gets the final answer.
    const scenario: Scenario = async (request): Promise<Reply> => {
      const last = request.messages.at(-1);
      if (last?.role === 'tool') return { content: JSON.stringify({ responseType: 'change', assistantSummary: 'Added the line you asked for (1 step changed).' }) };
      const text = messageText(request.messages.findLast((m) => m.role === 'user'));
      // A question gets an answer in prose, and stages nothing.
      if (text.startsWith('ASK:')) return { content: 'The check compares each vendor with the risk policy.' };
      const line = /ADD: (.+)$/mu.exec(text)?.[1] ?? 'A line.';
      const current = await stepOf(ownerContext, stepUrl);
      const changeSet = {
        schemaVersion: '1.0',
        targetType: 'step',
        mode: 'optimize',
        operations: [{ op: 'upsert', targetType: 'step', target: { workflowId: WF, nodeId: STEP }, payload: { stepMarkdown: `${current.markdown.trimEnd()}\n- ${line}\n` }, reason: 'Asked for.' }],
        impact: { objects: [STEP_KEY] },
      };
      return { toolCalls: [{ name: 'builder_change_stage', arguments: { changeSet }, id: `call_${Date.now()}` }] };
    };
    model.setScenario(scenario, { model: MODEL });

    const source = `/projects/${projectId}/workflows/${WF}`;
    const workbenchPath = `/builder/${projectId}/ai-workbench?workflowId=${WF}&targetType=step&targetId=${STEP}&mode=optimize&source=${encodeURIComponent(source)}`;

    // ---- Shift+Enter adds a line; Enter sends (the first message starts the session).
    const owner = await ownerContext.newPage();
    await owner.goto(workbenchPath);
    await owner.locator('[data-testid="workbench"][data-phase="none"]').waitFor();
    const input = owner.getByTestId('composer-input');
    await input.click();
    await input.pressSequentially('Please improve the check.');
    await input.press('Shift+Enter');
    await input.pressSequentially('ADD: Cite the vendor risk policy.');
    expect(await input.inputValue()).toBe('Please improve the check.\nADD: Cite the vendor risk policy.');
    expect(await owner.getByTestId('workbench').getAttribute('data-phase')).toBe('none');
    await input.press('Enter');
    await owner.locator('[data-testid="workbench"][data-phase="ready"]').waitFor();
    const sessionId = await owner.getByTestId('workbench').getAttribute('data-session-id');
    expect(sessionId).toMatch(/^as_/);
    await owner.locator('[data-testid="turn-ending"][data-type="finished"]').waitFor({ timeout: 30_000 });
    expect(await input.inputValue()).toBe('');
    expect(await testids(owner, 'message-user').first().textContent()).toContain('ADD: Cite the vendor risk policy.');
    await owner.locator('[data-testid="validation-status"][data-valid="true"]').waitFor();
    await expect.poll(() => owner.getByTestId('apply-button').isEnabled()).toBe(true);

    // ---- A question: the answer is prose, and the turn says in the system's words that it staged nothing.
    await input.fill('ASK: What does this check compare?');
    await input.press('Enter');
    await owner.locator('[data-testid="turn-ending"][data-type="finished"]').nth(1).waitFor({ timeout: 30_000 });
    const turns = testids(owner, 'turn');
    expect(await turns.nth(1).getByTestId('message-assistant').textContent()).toContain('The check compares each vendor with the risk policy.');
    expect(await turns.nth(1).getByTestId('turn-staged-nothing').textContent()).toBe('Nothing was staged in this turn: no file changed.');
    expect(await turns.nth(1).getByTestId('turn-staged').count()).toBe(0);
    expect(await turns.nth(0).getByTestId('turn-staged').textContent()).toBe(`Staged 1 file: step:${WF}/${STEP} (modified).`);
    expect(await turns.nth(0).getByTestId('turn-staged-nothing').count()).toBe(0);
    await expect.poll(() => owner.getByTestId('apply-button').isEnabled()).toBe(true);

    // ---- A viewer watches the same session.
    const viewerContext = await suite.newContext();
    await signIn(viewerContext, base, DEMO_VIEWER);
    const viewer = await viewerContext.newPage();
    await viewer.goto(workbenchPath);
    await viewer.locator(`[data-testid="workbench"][data-session-id="${sessionId}"]`).waitFor();
    await viewer.locator(`[data-testid="changed-file"][data-key="${STEP_KEY}"]`).waitFor();
    expect(await viewer.getByTestId('lifecycle-applied').count()).toBe(0);

    // ---- "End session" asks first and says what is lost; Cancel keeps the session.
    await owner.getByTestId('workbench-end-session').click();
    const question = owner.getByRole('group', { name: /End this session\?/u });
    await question.waitFor();
    expect(await question.textContent()).toMatch(/1 staged change not applied will be lost; the conversation stays readable/u);
    await question.getByRole('button', { name: 'Cancel' }).click();
    await owner.getByTestId('workbench-end-session').waitFor();
    expect(await owner.getByTestId('workbench').getAttribute('data-session-id')).toBe(sessionId);

    // ---- The owner applies; the viewer is told who applied it, as which revision, live.
    const before = await stepOf(ownerContext, stepUrl);
    await owner.getByTestId('apply-button').click();
    await owner.getByTestId('apply-result').waitFor();
    const after = await stepOf(ownerContext, stepUrl);
    expect(after.revision).toBe(before.revision + 1);
    const appliedText = viewer.getByTestId('lifecycle-applied-text');
    await appliedText.waitFor({ timeout: 20_000 });
    expect(await appliedText.textContent()).toBe(`Applied by ${DEMO_USER.name} as revision ${after.revision}`);
    await screenshot(viewer, 'lifecycle-viewer-applied.png');
    await viewer.getByTestId('lifecycle-revision-link').click();
    await viewer.waitForURL((url) => url.pathname === `/projects/${projectId}/history` && url.searchParams.get('objectKey') === STEP_KEY);
    await viewer.getByTestId('history-section').waitFor();
    await expect.poll(() => viewer.getByTestId('history-section').textContent()).toContain(STEP_KEY);

    // ---- The sessions page lists the applied session and opens it read-only.
    await viewer.getByTestId('tab-sessions').click();
    await viewer.waitForURL((url) => url.pathname === `/projects/${projectId}/sessions`);
    const row = viewer.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`);
    await row.waitFor();
    expect(await row.getAttribute('data-state')).toBe('applied');
    expect(await row.getByTestId('session-state').textContent()).toBe('Applied');
    expect(await row.getByTestId('session-applied').textContent()).toContain(`Applied by ${DEMO_USER.name} as revision ${after.revision}`);
    expect(await row.getByTestId('session-files').textContent()).toBe('1 file changed');
    await viewer.getByTestId('sessions-filter-state').selectOption('cancelled');
    await viewer.waitForURL((url) => url.searchParams.get('state') === 'cancelled');
    await expect.poll(() => testids(viewer, 'session-row').count()).toBe(0);
    await viewer.getByTestId('sessions-filter-state').selectOption('applied');
    await viewer.waitForURL((url) => url.searchParams.get('state') === 'applied');
    await row.getByTestId('session-open').click();
    await viewer.locator(`[data-testid="workbench"][data-session-id="${sessionId}"]`).waitFor();
    await viewer.getByTestId('workbench-read-only').waitFor();
    await viewer.locator(`[data-testid="applied-file"][data-key="${STEP_KEY}"]`).waitFor();
    // The check reads the unified text: one click picks that view.
    const appliedDiff = viewer.getByTestId('applied-diff');
    await appliedDiff.getByTestId('diff-mode-text').click();
    expect(await appliedDiff.textContent()).toContain('+- Cite the vendor risk policy.');
    expect(await testids(viewer, 'message-user').first().textContent()).toContain('ADD: Cite the vendor risk policy.');
    await viewer.getByTestId('lifecycle-applied-text').waitFor();
    for (const control of ['composer', 'composer-input', 'apply-button', 'workbench-end-session']) {
      expect(await viewer.getByTestId(control).count(), control).toBe(0);
    }
    // The owner opening it from the list gets no composer or Apply either.
    await owner.goto(`/projects/${projectId}/sessions`);
    await owner.locator(`[data-testid="session-row"][data-session-id="${sessionId}"] [data-testid="session-open"]`).click();
    await owner.getByTestId('workbench-read-only').waitFor();
    for (const control of ['composer', 'apply-button', 'workbench-end-session']) {
      expect(await owner.getByTestId(control).count(), control).toBe(0);
    }

    // ---- A 390×844 phone: tabs switch the panes; Enter sends; the diff is seen on the Changes tab.
    const phoneContext = await suite.browser.newContext({ baseURL: base, viewport: { width: 390, height: 844 } });
    await signIn(phoneContext, base, DEMO_USER);
    const phone = await phoneContext.newPage();
    await phone.goto(workbenchPath);
    await phone.locator(`[data-testid="workbench"][data-session-id="${sessionId}"]`).waitFor();
    await phone.getByTestId('workbench-tabs').waitFor({ state: 'visible' });
    expect(await phone.getByTestId('workbench-pane-conversation').isVisible()).toBe(true);
    expect(await phone.getByTestId('workbench-pane-changes').isVisible()).toBe(false);
    const phoneInput = phone.getByTestId('composer-input');
    await phoneInput.fill('ADD: Name the approver for every blocking status.');
    await phoneInput.press('Enter');
    await phone.locator('[data-testid="turn-ending"][data-type="finished"]').nth(2).waitFor({ timeout: 30_000 });
    await phone.getByTestId('workbench-tab-changes').click();
    expect(await phone.getByTestId('workbench-pane-changes').isVisible()).toBe(true);
    expect(await phone.getByTestId('workbench-pane-conversation').isVisible()).toBe(false);
    // A phone-wide window opens the diff inline, not side by side; the check reads the unified text.
    const phoneDiff = phone.locator(`[data-testid="file-diff"][data-key="${STEP_KEY}"]`);
    await phoneDiff.locator('[data-testid="code-diff"][data-mode="inline"]').waitFor();
    await phoneDiff.getByTestId('diff-mode-text').click();
    const patch = phoneDiff.getByTestId('file-patch');
    await expect.poll(() => patch.textContent(), { timeout: 20_000 }).toContain('+- Name the approver for every blocking status.');
    expect(await patch.isVisible()).toBe(true);
    // Nothing is wider than the screen.
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await phone.getByTestId('workbench-tab-review').click();
    expect(await phone.getByTestId('workbench-pane-review').isVisible()).toBe(true);
    expect(await phone.getByTestId('workbench-pane-changes').isVisible()).toBe(false);
    await screenshot(phone, 'lifecycle-phone.png');

    // ---- Ending the session (confirmed) returns to the page the person came from.
    await phone.getByTestId('workbench-tab-conversation').click();
    await phone.getByTestId('workbench-end-session').click();
    await phone.getByTestId('workbench-end-session-confirm').click();
    await phone.waitForURL((url) => url.pathname === source);

    await Promise.all([ownerContext.close(), viewerContext.close(), phoneContext.close()]);
  });
});
