/**
 * Reviewing one AI session together in three browsers (issue 15, line comments and approvals): an
 * editor asks the offline demo model for a change, the owner and a viewer open the same session.
 * A comment the viewer posts on a line of the diff appears for the other two with its gutter
 * marker; the editor's reply and the owner's resolve reach everyone. With one required approval
 * (set by the owner in Settings) Apply stays disabled for the editor, with the session's reason,
 * until the owner approves; a second AI turn ("make it shorter") disables it again; after the
 * owner approves that version the editor applies and the viewer is told who applied.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO_USER, DEMO_VIEWER, seedDemo } from '../../scripts/seed-demo.ts';
import { hunksOf } from '../../shared/ai/hunks.ts';
import { describeBrowser, newUser, registerViaApi, useModelSuite, type TestUser } from './harness.ts';

const WF = 'vendor-intake';
const STEP = 'capture-request';
const STEP_KEY = `step:${WF}/${STEP}`;

describeBrowser('reviewing a session together (browser, three people)', () => {
  const started = useModelSuite();
  const contexts: BrowserContext[] = [];
  let projectId: string;
  let editorUser: TestUser;

  async function signedInPage(user: { email: string; password: string }): Promise<Page> {
    const base = started.suite.product.url;
    const context = await started.suite.newContext();
    contexts.push(context);
    const login = await context.request.post(`${base}/api/auth/login`, { data: { email: user.email, password: user.password }, headers: { origin: base } });
    expect(login.status()).toBe(200);
    return context.newPage();
  }

  beforeAll(async () => {
    const { suite, model } = started;
    const base = suite.product.url;
    ({ projectId } = await seedDemo(base, { scriptedModelUrl: model.url }));
    editorUser = newUser('Editor');
    await registerViaApi(suite.product, editorUser);
  });

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
  });

  it('shares comments, replies and resolves live, and gates Apply on the owner approving the latest version', { timeout: 180_000 }, async () => {
    const base = started.suite.product.url;
    const owner = await signedInPage(DEMO_USER);
    const editor = await signedInPage(editorUser);
    const viewer = await signedInPage(DEMO_VIEWER);

    // ---- The owner invites the editor, who accepts, and sets one required approval in the project's Settings.
    const invited = await owner.request.post(`${base}/api/projects/${projectId}/members`, { data: { email: editorUser.email, role: 'editor' }, headers: { origin: base } });
    expect(invited.status()).toBe(201);
    const invitationId = ((await invited.json()) as { data: { invitation: { id: string } } }).data.invitation.id;
    const accepted = await editor.request.post(`${base}/api/users/me/invitations/${invitationId}/accept`, { data: {}, headers: { origin: base } });
    expect(accepted.status()).toBe(200);
    await owner.goto(`/projects/${projectId}/settings`);
    await owner.getByTestId('required-approvals-input').fill('1');
    await owner.getByTestId('review-rules-save').click();
    await owner.getByTestId('review-rules-saved').waitFor();
    const settings = await owner.request.get(`${base}/api/projects/${projectId}`);
    expect(((await settings.json()) as { data: { project: { settings: { requiredApprovals: number } } } }).data.project.settings.requiredApprovals).toBe(1);

    // ---- The editor (their AI: the demo model) asks for a change to a step.
    const profile = await editor.request.put(`${base}/api/users/me/llm-profile`, {
      data: { provider: 'openai-compatible', preset: 'scripted-demo', baseUrl: started.model.url, model: 'scripted-demo', apiKey: 'sk-local-demo-key', timeoutSeconds: 60, contextWindow: 128000 },
      headers: { origin: base },
    });
    expect(profile.status()).toBe(200);
    await editor.goto(`/projects/${projectId}/workflows/${WF}?node=${STEP}`);
    await editor.locator('[data-testid="step-ai-links"] [data-testid="ai-workbench-link"][data-mode="optimize"]').click();
    await editor.waitForURL(/\/builder\/[^/]+\/ai-workbench\?/);
    await editor.getByLabel('Message', { exact: true }).fill('Please improve this.');
    await editor.getByTestId('composer-send').click();
    await editor.locator('[data-testid="changes-version"][data-version="1"]').waitFor({ timeout: 30_000 });
    await editor.locator('[data-testid="validation-status"][data-valid="true"]').waitFor({ timeout: 30_000 });
    // The turn ends after it staged and validated; until then Apply waits for the AI, not the review.
    await editor.locator('[data-testid="turn-status"][data-running="false"]').waitFor({ timeout: 30_000 });
    const workbenchUrl = editor.url();

    // ---- The owner and the viewer open the same session.
    await owner.goto(workbenchUrl);
    await viewer.goto(workbenchUrl);
    const sessionId = await editor.getByTestId('workbench').getAttribute('data-session-id');
    for (const page of [owner, viewer]) {
      await page.locator(`[data-testid="workbench"][data-session-id="${sessionId}"]`).waitFor();
      await page.locator(`[data-testid="changed-file"][data-key="${STEP_KEY}"] [data-testid="file-diff"]`).waitFor();
    }

    // ---- Apply waits for the approval, in the session's words; the editor asked for the change, so cannot approve it.
    const apply = editor.getByTestId('apply-button');
    await editor.getByTestId('apply-blocked').waitFor();
    expect(await apply.isDisabled()).toBe(true);
    expect(await editor.getByTestId('apply-blocked').textContent()).toContain('needs 1 approval');
    expect(await editor.getByTestId('approve-button').isDisabled()).toBe(true);
    expect(await editor.getByTestId('approve-blocked').textContent()).toContain('someone else approves it');
    expect(await viewer.getByTestId('approve-button').count()).toBe(0);

    // ---- The viewer comments on the first added line of the step; everyone sees the thread and the marker.
    const file = (page: Page) => page.locator(`[data-testid="changed-file"][data-key="${STEP_KEY}"]`);
    // The first added line comes from the staged change; its "+" sits in the gutter of the staged
    // side of the side-by-side view (the default view).
    const changes = await owner.request.get(`${base}/api/projects/${projectId}/ai/sessions/${sessionId}/changes`);
    const stepChange = ((await changes.json()) as { data: any }).data.files.find((f: any) => f.key === STEP_KEY);
    const line = hunksOf(stepChange.before, stepChange.after).find((h) => h.newLines > 0)!.newStart;
    expect(line).toBeGreaterThan(0);
    const split = file(viewer).locator('[data-testid="code-diff"][data-mode="split"][data-phase="ready"]');
    await split.waitFor();
    await split.locator('.cm-mergeViewEditor').nth(1).locator(`[data-testid="diff-comment-line"][data-line="${line}"]`).click();
    // Comments and replies go on the live socket (no who-is-asking round trip): no page POSTs one.
    const commentPosts: string[] = [];
    for (const page of [owner, editor, viewer]) page.on('request', (r) => r.method() === 'POST' && r.url().endsWith('/comments') && commentPosts.push(r.url()));
    await file(viewer).getByTestId('line-comment-input').fill('Does this cite the **policy section**? <img src=x onerror="window.pwned=1">');
    await file(viewer).getByTestId('line-comment-submit').click();
    for (const page of [owner, editor, viewer]) {
      const thread = page.locator(`[data-testid="review-thread"][data-line="${line}"]`);
      await thread.waitFor();
      expect(await thread.locator('[data-testid="thread-comment"] strong').textContent()).toBe('policy section');
      // The thread names the file by its path, not by the internal key.
      expect(await thread.getByTestId('thread-place').textContent()).toBe(`workflows/${WF}/steps/${STEP}.md, line ${line}`);
      await file(page).locator(`[data-testid="diff-thread-marker"][data-line="${line}"]`).waitFor();
    }
    expect(await viewer.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();

    // ---- The editor replies; the owner resolves; both reach everyone.
    const threadOf = (page: Page) => page.getByTestId('review-thread').first();
    // "@" offers the members (keyboard: Enter picks); a unique first name ("@Demo") counts too, and
    // the box says who will be notified before anything is sent.
    const reply = threadOf(editor).getByTestId('thread-reply-input');
    await reply.click();
    await reply.pressSequentially('@Ve');
    const option = threadOf(editor).getByTestId('mention-option');
    await option.first().waitFor();
    expect(await option.allTextContents()).toEqual([expect.stringContaining(DEMO_VIEWER.name)]);
    await reply.press('Enter');
    expect(await reply.inputValue()).toBe(`@${DEMO_VIEWER.name} `);
    await reply.pressSequentially('and @Demo: yes, section 4.2.');
    const notify = threadOf(editor).getByTestId('mention-will-notify');
    await expect.poll(() => notify.textContent()).toContain(DEMO_USER.name);
    expect(await notify.textContent()).toContain(DEMO_VIEWER.name);
    await threadOf(editor).getByTestId('thread-reply').click();
    for (const page of [owner, viewer]) await page.getByTestId('mention-notice').first().waitFor();
    for (const page of [owner, viewer]) await expect.poll(() => threadOf(page).getByTestId('thread-comment').count()).toBe(2);
    expect(commentPosts).toEqual([]);
    await threadOf(owner).getByTestId('thread-resolve').click();
    for (const page of [editor, viewer]) await expect.poll(() => threadOf(page).getAttribute('data-status')).toBe('resolved');

    // ---- The owner approves version 1: the editor's Apply comes alive.
    await owner.getByTestId('approve-button').click();
    await owner.locator('[data-testid="approval-status"][data-counted="1"]').waitFor();
    await expect.poll(() => apply.isEnabled()).toBe(true);

    // ---- A second AI turn makes version 2: the approval was for the older version, Apply waits again.
    await editor.getByLabel('Message', { exact: true }).fill('make it shorter');
    await editor.getByTestId('composer-send').click();
    await editor.locator('[data-testid="changes-version"][data-version="2"]').waitFor({ timeout: 30_000 });
    await editor.locator('[data-testid="validation-status"][data-valid="true"]').waitFor({ timeout: 30_000 });
    await editor.locator('[data-testid="turn-status"][data-running="false"]').waitFor({ timeout: 30_000 });
    await editor.locator('[data-testid="approval-status"][data-counted="0"]').waitFor();
    expect(await apply.isDisabled()).toBe(true);
    expect(await editor.getByTestId('apply-blocked').textContent()).toContain('needs 1 approval');

    // ---- The owner approves version 2; the editor applies; the viewer is told who applied.
    await owner.locator('[data-testid="changes-version"][data-version="2"]').waitFor();
    await expect.poll(() => owner.getByTestId('approve-button').isEnabled()).toBe(true);
    expect(await owner.getByTestId('approve-button').textContent()).toContain('version 2');
    await owner.getByTestId('approve-button').click();
    await expect.poll(() => apply.isEnabled()).toBe(true);
    await apply.click();
    await editor.getByTestId('apply-result').waitFor();
    const applied = viewer.getByTestId('review-applied');
    await applied.waitFor();
    expect(await applied.textContent()).toContain(`Applied by ${editorUser.name}`);
  });
});
