/**
 * The AI workbench live in a real browser: the owner of the seeded demo project opens the
 * workbench on a step, sends a message and watches the turn (status line, tool lines, the
 * summary); a viewer opened mid-turn sees the same conversation, without Send, Stop or Apply; the
 * context disclosure lists the eight layers; the staged step shows in the changes pane with its
 * diff and is applied; a reload finds the same session; a dropped socket resumes from the last
 * seq it saw; Stop ends a turn that hangs.
 *
 * The model is the scripted OpenAI-compatible server, in-process, so the test holds a model
 * request open (a promise it releases) instead of sleeping.
 */
import type { BrowserContext, Page, WebSocketRoute } from 'playwright-core';
import { expect, it } from 'vitest';
import { DEMO_USER, DEMO_VIEWER, seedDemo } from '../../scripts/seed-demo.ts';
import { messageText, toolLoop, type Reply, type Scenario } from '../support/scripted-openai/index.ts';
import { describeBrowser, screenshot, useModelSuite } from './harness.ts';

const MODEL = 'workbench-model';
const WF = 'vendor-intake';
const STEP = 'quick-check';
const STEP_KEY = `step:${WF}/${STEP}`;
const ADDED_LINE = '- Cite the vendor risk policy section behind every blocking status.';
const SUMMARY = 'Quick check now cites the vendor risk policy for every blocking status (1 step changed).';
const HANG_MARKER = 'Take your time';

/** A promise the test resolves when it wants the held model request to answer. */
function gate(): { promise: Promise<void>; release: () => void } {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

function toolCall(name: string, args: Record<string, unknown>, id: string) {
  return { name: name.replaceAll('.', '_'), arguments: args, id };
}

/** Signs the context in through the API (the cookie lands in the context's jar). */
async function signIn(context: BrowserContext, baseUrl: string, user: { email: string; password: string }): Promise<void> {
  const response = await context.request.post(`${baseUrl}/api/auth/login`, {
    data: { email: user.email, password: user.password },
    headers: { origin: baseUrl },
  });
  expect(response.status()).toBe(200);
}

async function apiGet<T>(context: BrowserContext, url: string): Promise<T> {
  const response = await context.request.get(url);
  const body = (await response.json()) as { data: T; error: unknown };
  expect(response.status(), JSON.stringify(body.error)).toBe(200);
  return body.data;
}

const testids = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);

describeBrowser('AI workbench (browser)', () => {
  const started = useModelSuite();

  it('runs a turn live for the owner and a viewer, shows the context and the diff, applies, recovers on reload and stops a turn', { timeout: 150_000 }, async () => {
    const { suite, model } = started;
    const t0 = Date.now();
    const base = suite.product.url;
    const { projectId } = await seedDemo(base);

    const ownerContext = await suite.newContext();
    await signIn(ownerContext, base, DEMO_USER);
    const saved = await ownerContext.request.put(`${base}/api/users/me/llm-profile`, {
      headers: { origin: base },
      data: {
        provider: 'openai-compatible',
        preset: 'custom',
        baseUrl: model.url,
        model: MODEL,
        apiKey: 'sk-workbench-test-key',
        timeoutSeconds: 60,
        contextWindow: 128_000,
      },
    });
    expect(saved.status()).toBe(200);

    // The model: read the context and the step, stage an improved step, then (held) answer.
    const stepUrl = `${base}/api/projects/${projectId}/workflows/${WF}/steps/${STEP}`;
    const before = (await apiGet<{ step: { markdown: string } }>(ownerContext, stepUrl)).step.markdown;
    const improved = `${before.trimEnd()}\n${ADDED_LINE}\n`;
    const changeSet = {
      schemaVersion: '1.0',
      targetType: 'step',
      mode: 'optimize',
      operations: [{ op: 'upsert', targetType: 'step', target: { workflowId: WF, nodeId: STEP }, payload: { stepMarkdown: improved }, reason: 'Cite the policy.' }],
      impact: { objects: [STEP_KEY] },
    };
    const held = gate();
    const firstTurn = toolLoop([
      {
        content: 'Let me read the step first.',
        toolCalls: [toolCall('builder.context.get', {}, 'call_ctx'), toolCall('builder.step.read', { workflowId: WF, nodeId: STEP }, 'call_step')],
      },
      { toolCalls: [toolCall('builder.change.stage', { changeSet }, 'call_stage')] },
      async (): Promise<Reply> => {
        await held.promise;
        return { content: JSON.stringify({ responseType: 'change', assistantSummary: SUMMARY }) };
      },
    ]);
    // A message asking the AI to take its time hangs until the turn is stopped.
    const scenario: Scenario = (request) => {
      const lastUser = request.messages.findLast((m) => m.role === 'user');
      return messageText(lastUser).includes(HANG_MARKER) ? { fault: 'hang' } : firstTurn(request);
    };
    model.setScenario(scenario, { model: MODEL });

    // ---- The owner opens the workbench on the step: no session yet, the badges say what and how.
    const workbenchPath = `/builder/${projectId}/ai-workbench?workflowId=${WF}&targetType=step&targetId=${STEP}&mode=optimize`;
    const owner = await ownerContext.newPage();
    await owner.goto(workbenchPath);
    await owner.locator('[data-testid="workbench"][data-phase="none"]').waitFor();
    expect(await owner.getByTestId('badge-target-type').getAttribute('data-value')).toBe('step');
    expect(await owner.getByTestId('badge-target-id').getAttribute('data-value')).toBe(STEP);
    expect(await owner.getByTestId('badge-mode').getAttribute('data-value')).toBe('optimize');
    expect(await owner.getByTestId('context-disclosure').textContent()).toContain('nothing sent yet');
    // "Suggest only" is offered for workflow targets, not for a step.
    expect(await owner.getByTestId('composer-suggest-only').count()).toBe(0);

    // The first message starts the session and the turn.
    await owner.getByLabel('Message', { exact: true }).fill('Make the quick check cite the vendor risk policy.');
    const tSend = Date.now();
    await owner.getByTestId('composer-send').click();
    await owner.locator('[data-testid="workbench"][data-phase="ready"]').waitFor();
    const sessionId = await owner.getByTestId('workbench').getAttribute('data-session-id');
    expect(sessionId).toMatch(/^as_/);

    // Live: three tool lines while the final answer is held; the status line runs; Send is off, Stop is on.
    await expect.poll(() => testids(owner, 'tool-line').count(), { timeout: 20_000 }).toBe(3);
    const toolNames = await testids(owner, 'tool-line').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name')));
    expect(toolNames).toEqual(['builder.context.get', 'builder.step.read', 'builder.change.stage']);
    await owner.locator('[data-testid="tool-line"][data-name="builder.change.stage"][data-state="ok"]').waitFor();
    const stepRead = owner.locator('[data-testid="tool-line"][data-name="builder.step.read"]');
    expect(await stepRead.getByTestId('tool-summary').textContent()).toMatch(new RegExp(`^step ${WF}/${STEP} → `));
    expect(await stepRead.textContent()).toMatch(/ok · \d+(\.\d)? m?s/);
    const tToolLines = Date.now();
    const status = owner.getByTestId('turn-status');
    expect(await status.getAttribute('data-running')).toBe('true');
    expect(await status.textContent()).toMatch(/Thinking…|Writing…|Calling/);
    expect(await owner.getByTestId('composer-send').isDisabled()).toBe(true);
    await owner.getByTestId('composer-stop').waitFor();
    // The staged step is already in the changes pane, but nothing can be applied while the AI works.
    await owner.locator(`[data-testid="changed-file"][data-key="${STEP_KEY}"][data-action="M"]`).waitFor();
    expect(await owner.getByTestId('apply-button').isDisabled()).toBe(true);

    // ---- A viewer opens the same workbench mid-turn: same conversation and tool lines, no write controls.
    const viewerContext = await suite.newContext();
    await signIn(viewerContext, base, DEMO_VIEWER);
    const viewer = await viewerContext.newPage();
    // The viewer's socket goes through Playwright, so the test can drop it and read the resume handshake.
    const viewerSockets: WebSocketRoute[] = [];
    const viewerHellos: number[] = [];
    await viewer.routeWebSocket(/\/ws$/, (ws) => {
      const server = ws.connectToServer();
      viewerSockets.push(ws);
      ws.onMessage((message) => {
        if (typeof message === 'string') {
          const frame = JSON.parse(message) as { type: string; lastSeq?: number };
          if (frame.type === 'hello') viewerHellos.push(frame.lastSeq ?? -1);
        }
        server.send(message);
      });
    });
    await viewer.goto(workbenchPath);
    await viewer.locator(`[data-testid="workbench"][data-session-id="${sessionId}"]`).waitFor();
    await expect.poll(() => testids(viewer, 'tool-line').count()).toBe(3);
    expect(await testids(viewer, 'message-user').first().textContent()).toContain('Make the quick check cite the vendor risk policy.');
    expect(await viewer.getByTestId('turn-status').getAttribute('data-running')).toBe('true');
    await viewer.getByTestId('composer-viewer-note').waitFor();
    for (const control of ['composer-send', 'composer-stop', 'apply-button', 'discard-button', 'workbench-end-session']) {
      expect(await viewer.getByTestId(control).count(), control).toBe(0);
    }
    // Each sees the other.
    await viewer.locator('[data-testid="presence-person"][data-role="owner"]').waitFor();
    expect(await viewer.getByTestId('presence-person').textContent()).toContain(DEMO_USER.name);
    await owner.locator('[data-testid="presence-person"][data-role="viewer"]').waitFor();
    expect(await owner.getByTestId('live-status').getAttribute('data-status')).toBe('open');

    // ---- The model answers: both see the summary and the ending; the status line goes quiet.
    const tRelease = Date.now();
    held.release();
    for (const page of [owner, viewer]) {
      await page.locator('[data-testid="turn-ending"][data-type="finished"]').waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('message-assistant').textContent()).toContain(SUMMARY);
      // Beside the staged version, what the system staged (not the model's account of it).
      expect(await page.getByTestId('turn-staged').textContent()).toBe(`Staged 1 file: step:${WF}/${STEP} (modified).`);
      expect(await page.getByTestId('turn-usage').textContent()).toMatch(/^[\d,]+ tokens \(/);
      expect(await page.getByTestId('turn-status').getAttribute('data-running')).toBe('false');
      // The finished turn keeps its tool lines.
      expect(await testids(page, 'tool-line').count()).toBe(3);
    }
    const tFinished = Date.now();

    // "Context sent" lists the eight prompt layers, for the viewer too.
    for (const page of [owner, viewer]) {
      await page.getByTestId('context-disclosure').locator('summary').click();
      await expect.poll(() => testids(page, 'context-layer').count()).toBe(8);
      const layers = await testids(page, 'context-layer').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-layer')));
      expect(layers).toEqual(['0A', '0B', '1', '2', '3', '4', '5', '6']);
      expect(await page.getByTestId('context-persona').getAttribute('data-source')).toBe('project');
    }

    // ---- The changes pane: the step, its unified diff, valid; Apply for the owner only.
    const ownerDiff = owner.locator(`[data-testid="file-diff"][data-key="${STEP_KEY}"]`);
    await ownerDiff.getByTestId('diff-mode-text').click();
    const patch = ownerDiff.getByTestId('file-patch');
    await expect.poll(() => patch.textContent()).toContain(`+${ADDED_LINE}`);
    expect(await owner.getByTestId('diff-added').textContent()).toBe('+1');
    await owner.locator('[data-testid="validation-status"][data-valid="true"]').waitFor();
    await viewer.locator(`[data-testid="changed-file"][data-key="${STEP_KEY}"]`).waitFor();
    expect(await viewer.getByTestId('apply-button').count()).toBe(0);
    await expect.poll(() => owner.getByTestId('apply-button').isEnabled()).toBe(true);
    await owner.evaluate(() => window.scrollTo(0, 0));
    await screenshot(owner, 'workbench.png');
    await screenshot(viewer, 'workbench-viewer.png');

    await owner.getByTestId('apply-button').click();
    await owner.getByTestId('apply-result').waitFor();
    expect(await owner.getByTestId('apply-revisions').textContent()).toMatch(/^workflow \d+, agents \d+, assets \d+$/);
    await owner.getByTestId('changes-empty').waitFor();
    await viewer.getByTestId('changes-empty').waitFor();
    expect((await apiGet<{ step: { markdown: string } }>(ownerContext, stepUrl)).step.markdown).toBe(improved);
    const tApplied = Date.now();

    // ---- A reload finds the same session, with the conversation and its tool lines.
    await owner.reload();
    await owner.locator(`[data-testid="workbench"][data-session-id="${sessionId}"]`).waitFor();
    await owner.locator('[data-testid="turn-ending"][data-type="finished"]').waitFor();
    expect(await testids(owner, 'tool-line').count()).toBe(3);
    expect(await owner.getByTestId('message-assistant').textContent()).toContain(SUMMARY);

    // ---- The viewer's socket drops: it reconnects and resumes after the last seq it applied.
    expect(viewerHellos).toEqual([0]);
    const { lastSeq } = await apiGet<{ lastSeq: number }>(ownerContext, `${base}/api/projects/${projectId}/ai/sessions/${sessionId}`);
    await viewerSockets[0]!.close({ code: 1001, reason: 'network drop (test)' });
    await expect.poll(() => viewerHellos.length).toBe(2);
    expect(viewerHellos[1]).toBe(lastSeq);
    await viewer.locator('[data-testid="live-status"][data-status="open"]').waitFor();
    expect(await testids(viewer, 'turn').count()).toBe(1);

    // ---- Stop: a turn whose model never answers is stopped by the owner; the viewer sees who.
    await owner.getByLabel('Message', { exact: true }).fill(`${HANG_MARKER} and check the other steps too.`);
    await owner.getByTestId('composer-send').click();
    await owner.locator('[data-testid="turn"][data-status="running"]').waitFor();
    await owner.getByTestId('composer-stop').click();
    for (const page of [owner, viewer]) {
      await page.locator('[data-testid="turn-ending"][data-type="stopped"]').waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('turn-stopped-by').textContent()).toBe(DEMO_USER.name);
      expect(await testids(page, 'turn').count()).toBe(2);
    }
    await expect.poll(() => owner.getByTestId('composer-send').isDisabled()).toBe(true); // the box is empty again
    await owner.getByLabel('Message', { exact: true }).fill('One more thing');
    await expect.poll(() => owner.getByTestId('composer-send').isEnabled()).toBe(true);

    // A viewer on a target nobody has started a session for is told they can only watch one.
    await viewer.goto(`/builder/${projectId}/ai-workbench?workflowId=${WF}&targetType=workflow&mode=optimize`);
    await viewer.locator('[data-testid="workbench"][data-phase="none"]').waitFor();
    expect(await viewer.getByTestId('workbench-no-session').textContent()).toContain('As a viewer you can only watch');
    expect(await viewer.getByTestId('composer-send').count()).toBe(0);

    console.log(
      `[workbench timings] send→tool lines ${tToolLines - tSend} ms, release→finished (both pages) ${tFinished - tRelease} ms, ` +
        `apply ${tApplied - tFinished} ms, whole test ${Date.now() - t0} ms`,
    );
    await viewerContext.close();
    await ownerContext.close();
  });
});
