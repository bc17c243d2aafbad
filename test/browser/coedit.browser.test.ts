/**
 * Co-editing the staged draft in a real browser, with three people on one session (owner, editor,
 * viewer): the editor fixes a line of the staged step in the draft editor; the viewer's live,
 * read-only draft shows the edit and the editor's named cursor; the viewer's keystrokes change
 * nothing; the owner sees everyone's avatars with the file they are in, and a new version marked
 * as the editor's.
 */
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO_USER, DEMO_VIEWER, seedDemo } from '../../scripts/seed-demo.ts';
import { describeBrowser, newUser, registerViaApi, screenshot, startSuite, type Suite } from './harness.ts';
import { colourOf } from '../../app/lib/workbench/person-colour.ts';

const WF = 'vendor-intake';
const STEP = 'quick-check';
const STEP_KEY = `step:${WF}/${STEP}`;
const ADDED_LINE = '- Cite the vendor risk policy section behind every blocking status.';
const FIX = ' (and link it)';

async function signIn(context: BrowserContext, baseUrl: string, user: { email: string; password: string }): Promise<void> {
  const response = await context.request.post(`${baseUrl}/api/auth/login`, { data: { email: user.email, password: user.password }, headers: { origin: baseUrl } });
  expect(response.status()).toBe(200);
}

async function api<T>(context: BrowserContext, baseUrl: string, method: 'GET' | 'POST', url: string, data?: unknown): Promise<T> {
  const response = await context.request.fetch(`${baseUrl}${url}`, { method, headers: { origin: baseUrl }, ...(data === undefined ? {} : { data }) });
  const body = (await response.json()) as { data: T; error: unknown };
  expect(response.status(), `${method} ${url}: ${JSON.stringify(body.error)}`).toBeLessThan(300);
  return body.data;
}

const byTestId = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);
/**
 * Scroll the editor to its end until the line is drawn: CodeMirror draws only the lines near the
 * scroll position, and only while the editor is inside the window (an editor below the fold keeps
 * its first lines however far its own scroller moves), so the editor is brought into the window
 * first, as a reader would scroll the page to it. A scroll made before its first measure (the
 * editor is loaded lazily) is measured against the old height, so both are repeated until the
 * line is there.
 */
async function scrollToLine(editor: Locator, text: string): Promise<Locator> {
  const line = editor.locator('.cm-line', { hasText: text });
  await expect
    .poll(
      async () => {
        await editor.scrollIntoViewIfNeeded();
        await editor.locator('.cm-scroller').evaluate((el) => el.scrollTo(0, el.scrollHeight));
        return line.count();
      },
      { timeout: 30_000, interval: 250 },
    )
    .toBe(1);
  return line;
}
const draftOf = (page: Page) => page.locator(`[data-testid="draft-panel"][data-key="${STEP_KEY}"]`);

describeBrowser('co-editing the staged draft (browser)', () => {
  let suite: Suite;

  beforeAll(async () => {
    suite = await startSuite();
  });

  afterAll(async () => {
    await suite?.close();
  });

  it('lets the editor fix a line while the viewer watches it live with the cursor and cannot type', { timeout: 150_000 }, async () => {
    const base = suite.product.url;
    const { projectId } = await seedDemo(base);
    const projectApi = `/api/projects/${projectId}`;

    const ownerContext = await suite.newContext();
    await signIn(ownerContext, base, DEMO_USER);
    const editorUser = newUser('Editor');
    const { id: editorId } = await registerViaApi(suite.product, editorUser);
    const editorContext = await suite.newContext();
    await signIn(editorContext, base, editorUser);
    const { invitation } = await api<{ invitation: { id: string } }>(ownerContext, base, 'POST', `${projectApi}/members`, { email: editorUser.email, role: 'editor' });
    await api(editorContext, base, 'POST', `/api/users/me/invitations/${invitation.id}/accept`, {});
    const viewerContext = await suite.newContext();
    await signIn(viewerContext, base, DEMO_VIEWER);

    // The staged draft: the step with one added line, as a change set staged on the session.
    const before = (await api<{ step: { markdown: string } }>(ownerContext, base, 'GET', `${projectApi}/workflows/${WF}/steps/${STEP}`)).step.markdown;
    const improved = `${before.trimEnd()}\n${ADDED_LINE}\n`;
    const session = await api<{ sessionId: string }>(ownerContext, base, 'POST', `${projectApi}/ai/sessions`, {
      workflowId: WF,
      targetType: 'step',
      targetId: STEP,
      mode: 'optimize',
    });
    const sessionPath = `${projectApi}/ai/sessions/${session.sessionId}`;
    const staged = await api<{ version: number }>(ownerContext, base, 'POST', `${sessionPath}/stage`, {
      changeSet: {
        schemaVersion: '1.0',
        targetType: 'step',
        mode: 'optimize',
        operations: [{ op: 'upsert', targetType: 'step', target: { workflowId: WF, nodeId: STEP }, payload: { stepMarkdown: improved }, reason: 'Cite the policy.' }],
        impact: { objects: [STEP_KEY] },
      },
    });

    const workbenchPath = `/builder/${projectId}/ai-workbench?workflowId=${WF}&targetType=step&targetId=${STEP}&mode=optimize`;
    const [owner, editor, viewer] = await Promise.all([ownerContext.newPage(), editorContext.newPage(), viewerContext.newPage()]);
    for (const page of [owner, editor, viewer]) {
      await page.goto(workbenchPath);
      await page.locator(`[data-testid="workbench"][data-session-id="${session.sessionId}"]`).waitFor();
      await draftOf(page).waitFor();
    }

    // The viewer watches the live draft: read-only.
    expect(await draftOf(viewer).getByTestId('draft-toggle').textContent()).toContain('Watch live draft');
    await draftOf(viewer).getByTestId('draft-toggle').click();
    const viewerEditor = viewer.locator(`[data-testid="draft-editor"][data-key="${STEP_KEY}"][data-phase="ready"]`);
    await viewerEditor.waitFor();
    expect(await viewerEditor.getAttribute('data-readonly')).toBe('true');
    // The added line is the last one: CodeMirror renders only the lines near the scroll position.
    await (await scrollToLine(viewerEditor, ADDED_LINE)).waitFor();

    // The editor opens the same file and fixes the AI's line at its end.
    expect(await draftOf(editor).getByTestId('draft-toggle').textContent()).toContain('Edit draft');
    await draftOf(editor).getByTestId('draft-toggle').click();
    const editorEditor = editor.locator(`[data-testid="draft-editor"][data-key="${STEP_KEY}"][data-phase="ready"]`);
    await editorEditor.waitFor();
    await (await scrollToLine(editorEditor, ADDED_LINE)).click();
    // The end of the draft is the empty line after it (the file ends with a newline): one step back is the line's end.
    await editor.keyboard.press('Control+End');
    await editor.keyboard.press('ArrowLeft');
    await editor.keyboard.type(FIX);

    // The viewer sees the fixed line and the editor's cursor, named.
    await viewerEditor.locator('.cm-line', { hasText: `${ADDED_LINE}${FIX}` }).waitFor();
    const caret = viewerEditor.locator('.cm-ySelectionCaret', { hasText: editorUser.name });
    await caret.waitFor();
    expect(await caret.locator('.cm-ySelectionInfo').textContent()).toBe(editorUser.name);
    // In the editor's own colour (the page policy allows the caret's style by hash), not a bare black bar.
    const hex = colourOf(editorId);
    const rgb = `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
    expect(await caret.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(rgb);

    // The viewer's keystrokes change nothing, in the page or on the server.
    await viewerEditor.locator('.cm-line', { hasText: ADDED_LINE }).click();
    await viewer.keyboard.type('VIEWER WAS HERE');

    // A new version, marked as the editor's, for everyone; the server holds the fix and nothing of the viewer's.
    const nextVersion = String(staged.version + 1);
    for (const page of [owner, viewer]) {
      await page.locator(`[data-testid="changes-version"][data-version="${nextVersion}"]`).waitFor();
      await draftOf(page).getByTestId('draft-edited-by').filter({ hasText: editorUser.name }).waitFor();
    }
    const changes = await api<{ files: Array<{ key: string; after: string }> }>(ownerContext, base, 'GET', `${sessionPath}/changes`);
    const after = changes.files.find((f) => f.key === STEP_KEY)!.after;
    expect(after).toContain(`${ADDED_LINE}${FIX}`);
    expect(after).not.toContain('VIEWER');
    expect(await viewerEditor.locator('.cm-content').textContent()).not.toContain('VIEWER');
    expect(await viewerEditor.locator('.cm-content').textContent()).toContain(`${ADDED_LINE}${FIX}`);

    // Presence: the owner sees the editor's and the viewer's avatars, each in the step's file.
    const people = byTestId(owner, 'presence-person');
    await owner.locator(`[data-testid="presence-person"][data-file="${STEP_KEY}"]`).nth(1).waitFor();
    const names = await people.allTextContents();
    expect(names.some((n) => n.includes(editorUser.name))).toBe(true);
    expect(names.some((n) => n.includes(DEMO_VIEWER.name))).toBe(true);
    expect(await owner.locator('[data-testid="presence-person"] [data-testid="presence-avatar"]').count()).toBeGreaterThanOrEqual(2);
    await screenshot(viewer, 'coedit-viewer.png');
    await screenshot(owner, 'coedit-owner.png');
  });
});
