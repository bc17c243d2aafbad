/**
 * The browser suite's harness: finds Debian's Chromium, launches it with playwright-core, starts
 * the real product (product.ts), and the scripted model server for the AI suites, and offers a few
 * helpers. Not vitest browser mode: the tests run in Node and drive a real Chromium against the
 * real Worker.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe } from 'vitest';
import { DEMO_USER, seedDemo } from '../../scripts/seed-demo.ts';
import { startScriptedOpenAI, type ScriptedOpenAI } from '../support/scripted-openai/index.ts';
import { ROOT, startProduct, type Product } from './product.ts';

export const SKIP_BROWSER_TESTS = process.env.SKIP_BROWSER_TESTS === '1';

const DEFAULT_CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_MISSING =
  'Chromium not found: install it with `apt-get install -y chromium` (or set SKIP_BROWSER_TESTS=1 to skip the browser suite explicitly)';

/** These flags keep Chromium from phoning home (QUIC, component updates, sync) on a machine with no network. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

if (SKIP_BROWSER_TESTS) {
  console.warn('[browser tests] SKIP_BROWSER_TESTS=1: the browser suite is skipped explicitly.');
}

/** `describe` for browser suites: an explicit, reported skip when SKIP_BROWSER_TESTS=1. */
export const describeBrowser = describe.skipIf(SKIP_BROWSER_TESTS);

export function chromiumExecutable(): string {
  const candidate = process.env.CHROMIUM_PATH || DEFAULT_CHROMIUM;
  if (!existsSync(candidate)) throw new Error(`${CHROMIUM_MISSING} [looked for ${candidate}]`);
  return candidate;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumExecutable(), args: CHROMIUM_ARGS });
}

/** A browser and a running product for one test file; `close()` in `afterAll`. */
export interface Suite {
  browser: Browser;
  product: Product;
  newContext(): Promise<BrowserContext>;
  close(): Promise<void>;
}

export async function startSuite(): Promise<Suite> {
  // Check for Chromium first: it is the likelier thing to be missing, and the cheaper to check.
  chromiumExecutable();
  const product = await startProduct({ verbose: process.env.BROWSER_TEST_VERBOSE === '1' });
  let browser: Browser;
  try {
    browser = await launchChromium();
  } catch (error) {
    await product.stop();
    throw error;
  }
  return {
    browser,
    product,
    newContext: () => browser.newContext({ baseURL: product.url, viewport: { width: 1280, height: 900 } }),
    async close() {
      await browser.close().catch(() => undefined);
      await product.stop();
    },
  };
}

/** A suite and the scripted OpenAI-compatible server its AI settings point at. */
export interface ModelSuite {
  readonly suite: Suite;
  readonly model: ScriptedOpenAI;
}

/**
 * Starts the scripted model server and the suite in `beforeAll` and closes them (the suite first)
 * in `afterAll`. Call it inside the file's `describeBrowser`; read its fields inside a test.
 */
export function useModelSuite(): ModelSuite {
  let suite: Suite | undefined;
  let model: ScriptedOpenAI | undefined;

  beforeAll(async () => {
    model = await startScriptedOpenAI();
    suite = await startSuite();
  });

  afterAll(async () => {
    await suite?.close();
    await model?.close();
  });

  const notStarted = (what: string) => new Error(`useModelSuite(): the ${what} is not started yet; read it inside a test, after beforeAll`);
  return {
    get suite() {
      if (!suite) throw notStarted('suite');
      return suite;
    },
    get model() {
      if (!model) throw notStarted('model server');
      return model;
    },
  };
}

export interface DemoSuite extends ModelSuite {
  /** The demo project `npm start` seeds, seeded on this suite's product (read inside a test). */
  readonly projectId: string;
  /** A page in a context of its own, signed in as the demo user; every such context is closed after the file. */
  signedInPage(): Promise<Page>;
}

/** useModelSuite() with the demo project seeded in `beforeAll`, for the Workbench suites that review its changes. */
export function useDemoSuite(): DemoSuite {
  const started = useModelSuite();
  const contexts: BrowserContext[] = [];
  let projectId: string | undefined;

  beforeAll(async () => {
    ({ projectId } = await seedDemo(started.suite.product.url, { scriptedModelUrl: started.model.url }));
  });

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
  });

  return {
    get suite() {
      return started.suite;
    },
    get model() {
      return started.model;
    },
    get projectId() {
      if (!projectId) throw new Error('useDemoSuite(): the demo project is not seeded yet; read it inside a test, after beforeAll');
      return projectId;
    },
    async signedInPage() {
      const base = started.suite.product.url;
      const context = await started.suite.newContext();
      contexts.push(context);
      const login = await context.request.post(`${base}/api/auth/login`, { data: { email: DEMO_USER.email, password: DEMO_USER.password }, headers: { origin: base } });
      if (login.status() !== 200) throw new Error(`The demo user could not sign in: ${login.status()} ${await login.text()}`);
      return context.newPage();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Helpers

export interface TestUser {
  name: string;
  email: string;
  password: string;
}

let counter = 0;

/** A user no other test (or earlier run on the same database) has used. */
export function newUser(label: string): TestUser {
  counter += 1;
  const id = `${Date.now().toString(36)}${counter}${Math.random().toString(36).slice(2, 6)}`;
  return { name: `${label} ${id}`, email: `${label.toLowerCase()}-${id}@example.test`, password: 'correct horse battery' };
}

/** Registers an account straight through the API (no browser); the returned cookie is unused. */
export async function registerViaApi(product: Product, user: TestUser): Promise<{ id: string }> {
  const response = await fetch(`${product.url}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: product.url },
    body: JSON.stringify(user),
  });
  const body = (await response.json()) as { data: { user: { id: string } } | null; error: unknown };
  if (response.status !== 201 || !body.data) {
    throw new Error(`Registering ${user.email} failed: ${response.status} ${JSON.stringify(body.error)}`);
  }
  return body.data.user;
}

/** Signs in through the login page (fills the form and presses Enter). */
export async function signInThroughUi(page: Page, user: TestUser): Promise<void> {
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByLabel('Password').press('Enter');
}

/** Saves a full-page screenshot under test-results/ and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = path.join(ROOT, 'test-results');
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, name);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
