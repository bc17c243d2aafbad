import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, newUser, registerViaApi, screenshot, signInThroughUi, startSuite, type Suite } from './harness.ts';

describeBrowser('project roles (browser)', () => {
  let suite: Suite;

  beforeAll(async () => {
    suite = await startSuite();
  });

  afterAll(async () => {
    await suite?.close();
  });

  it('lets an owner add a viewer, who sees no write controls and whose API writes are refused', async () => {
    const { product } = suite;
    const owner = newUser('Owner');
    const viewer = newUser('Viewer');
    const projectName = `Shared package ${Date.now().toString(36)}`;

    // The owner signs up and creates a project in their own browser context.
    const ownerContext = await suite.newContext();
    const ownerPage = await ownerContext.newPage();
    await ownerPage.goto('/register');
    await ownerPage.getByLabel('Name').fill(owner.name);
    await ownerPage.getByLabel('Email').fill(owner.email);
    await ownerPage.getByLabel('Password').fill(owner.password);
    await ownerPage.getByTestId('register-submit').click();
    await ownerPage.waitForURL('**/projects');
    await ownerPage.getByLabel('Name').fill(projectName);
    await ownerPage.getByLabel('Name').press('Enter');
    const item = ownerPage.getByTestId('project-item').filter({ hasText: projectName });
    await item.waitFor();
    const projectId = await item.getAttribute('data-project-id');
    expect(projectId).toBeTruthy();

    // The second user has an account (registered through the API, not the UI).
    await registerViaApi(product, viewer);

    await ownerPage.goto(`/projects/${projectId}/members`);
    await ownerPage.getByTestId('add-member-form').waitFor();

    // An email without an account is refused with the server's message.
    await ownerPage.getByLabel('Email').fill(`nobody-${Date.now()}@example.test`);
    await ownerPage.getByTestId('add-member-role').selectOption('viewer');
    await ownerPage.getByTestId('add-member-submit').click();
    await ownerPage.getByTestId('add-member-error').waitFor();
    expect(await ownerPage.getByTestId('add-member-error').textContent()).toContain('No account uses this email');

    await ownerPage.getByLabel('Email').fill(viewer.email);
    await ownerPage.getByTestId('add-member-role').selectOption('viewer');
    await ownerPage.getByTestId('add-member-submit').click();
    const viewerRow = ownerPage.locator(`[data-testid="member-row"][data-email="${viewer.email}"]`);
    await viewerRow.waitFor();
    expect(await viewerRow.getAttribute('data-role')).toBe('viewer');
    // The only owner is not offered a Leave the server would refuse: the button is off and says why.
    const ownerRow = ownerPage.locator(`[data-testid="member-row"][data-email="${owner.email}"]`);
    expect(await ownerRow.getByTestId('member-remove').isDisabled()).toBe(true);
    expect(await ownerRow.getByTestId('member-last-owner').textContent()).toContain('make someone else an owner first');
    expect(await viewerRow.getByTestId('member-remove').isDisabled()).toBe(false);
    await screenshot(ownerPage, 'members-owner.png');

    // The viewer opens the project by its address in a second context and is asked to sign in first.
    const viewerContext = await suite.newContext();
    const viewerPage = await viewerContext.newPage();
    await viewerPage.goto(`/projects/${projectId}`);
    await viewerPage.waitForURL(/\/login\?next=/);
    await signInThroughUi(viewerPage, viewer);
    await viewerPage.waitForURL(`**/projects/${projectId}`);
    await viewerPage.getByTestId('project-overview').waitFor();

    expect(await viewerPage.getByTestId('project-name').textContent()).toBe(projectName);
    expect(await viewerPage.getByTestId('project-role').textContent()).toBe('viewer');
    expect(await viewerPage.getByTestId('new-workflow-form').count()).toBe(0);
    await screenshot(viewerPage, 'overview-viewer.png');

    // Settings are read-only for a viewer.
    await viewerPage.getByTestId('tab-settings').click();
    await viewerPage.getByTestId('domain-profile-readonly').waitFor();
    await viewerPage.getByTestId('project-details-readonly').waitFor();
    for (const control of ['project-edit-form', 'domain-profile-form', 'delete-project']) {
      expect(await viewerPage.getByTestId(control).count(), control).toBe(0);
    }

    await viewerPage.getByTestId('tab-members').click();
    await viewerPage.getByTestId('members-table').waitFor();
    await viewerPage.getByTestId('members-owner-note').waitFor();
    expect(await viewerPage.getByTestId('add-member-form').count()).toBe(0);
    expect(await viewerPage.getByTestId('member-role-select').count()).toBe(0);

    // The server enforces the role: a write with the viewer's own cookie is refused.
    const response = await viewerContext.request.patch(`${product.url}/api/projects/${projectId}`, {
      data: { name: 'Taken over' },
      headers: { origin: product.url },
    });
    expect(response.status()).toBe(403);
    const body = (await response.json()) as { data: unknown; error: { code: string } | null };
    expect(body.data).toBeNull();
    expect(body.error?.code).toBe('FORBIDDEN');

    await viewerContext.close();
    await ownerContext.close();
  });
});
