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

  it('lets an owner invite a viewer, who accepts on the projects page, sees no write controls and whose API writes are refused', async () => {
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

    // An email without an account and one with an account are answered alike: a pending invitation each, nobody added.
    const nobody = `nobody-${Date.now()}@example.test`;
    for (const email of [nobody, viewer.email]) {
      await ownerPage.getByLabel('Email').fill(email);
      await ownerPage.getByTestId('add-member-role').selectOption('viewer');
      await ownerPage.getByTestId('add-member-submit').click();
      await ownerPage.locator(`[data-testid="invitation-row"][data-email="${email}"]`).waitFor();
      expect(await ownerPage.getByTestId('member-invited').textContent()).toContain(email);
    }
    expect(await ownerPage.getByTestId('add-member-error').count()).toBe(0);
    expect(await ownerPage.getByTestId('member-row').count()).toBe(1);
    await screenshot(ownerPage, 'members-invited.png');
    // The owner withdraws the invitation nobody can accept.
    const nobodyRow = ownerPage.locator(`[data-testid="invitation-row"][data-email="${nobody}"]`);
    await nobodyRow.getByTestId('invitation-revoke').click();
    await nobodyRow.getByTestId('invitation-revoke-confirm').click();
    await nobodyRow.waitFor({ state: 'detached' });

    // The viewer signs in in a second context, finds the invitation on the projects page and accepts it.
    const viewerContext = await suite.newContext();
    const viewerPage = await viewerContext.newPage();
    await viewerPage.goto('/projects');
    await viewerPage.waitForURL(/\/login\?next=/);
    await signInThroughUi(viewerPage, viewer);
    await viewerPage.waitForURL('**/projects');
    const invitation = viewerPage.locator(`[data-testid="my-invitation"][data-project-id="${projectId}"]`);
    await invitation.waitFor();
    expect(await invitation.textContent()).toContain(projectName);
    expect(await invitation.getByTestId('my-invitation-role').getAttribute('data-role')).toBe('viewer');
    await screenshot(viewerPage, 'invitations-for-you.png');
    await invitation.getByTestId('my-invitation-accept').click();
    await viewerPage.waitForURL(`**/projects/${projectId}`);
    await viewerPage.getByTestId('project-overview').waitFor();

    // The owner now sees the viewer among the members, and no invitation left.
    await ownerPage.reload();
    const viewerRow = ownerPage.locator(`[data-testid="member-row"][data-email="${viewer.email}"]`);
    await viewerRow.waitFor();
    expect(await viewerRow.getAttribute('data-role')).toBe('viewer');
    await ownerPage.getByTestId('invitations-empty').waitFor();
    // The only owner is not offered a Leave the server would refuse: the button is off and says why.
    const ownerRow = ownerPage.locator(`[data-testid="member-row"][data-email="${owner.email}"]`);
    expect(await ownerRow.getByTestId('member-remove').isDisabled()).toBe(true);
    expect(await ownerRow.getByTestId('member-last-owner').textContent()).toContain('make someone else an owner first');
    expect(await viewerRow.getByTestId('member-remove').isDisabled()).toBe(false);
    await screenshot(ownerPage, 'members-owner.png');

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
    expect(await viewerPage.getByTestId('invitations-section').count()).toBe(0);
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
