/**
 * The state of the AI settings page (/settings/ai): the saved LLM profile, the form that edits
 * it, the early checks (the same `checkLlmProfileInput` the Worker runs), and the save and
 * connection-test actions. The page creates one per visit and hands it to its components.
 *
 * The API key is write-only: the form holds a newly typed key until it is saved, then forgets it;
 * the saved key only ever comes back as `apiKeyMasked`.
 */
import type { ErrorBody, ErrorCode } from '../../shared/errors.ts';
import {
  checkLlmProfileInput,
  LLM_TIMEOUT_SECONDS,
  LlmProfileInput,
  type LlmPreset,
  type LlmProfileTestResult,
  type LlmProfileView,
} from '../../shared/api/index.ts';
import { fieldErrors, type ApiResult } from './api.ts';
import { issuesByField } from './forms.ts';
import { t } from './i18n/i18n.svelte.ts';
import './i18n/llm-words.ts';
import { problemWords } from './local-words.ts';
import { llmProfileApi, type LlmProfileApi } from './llm-profile-api.ts';
import { presetOption, type LlmChoice, type LlmPresetOption } from './llm-presets.ts';

export { LLM_PRESET_OPTIONS, presetOption, type LlmChoice, type LlmPresetOption } from './llm-presets.ts';

/** A connection test as the page shows it: the provider's verdict, or the server's refusal. */
export type LlmTestOutcome =
  | { type: 'ok'; latencyMs: number; model: string }
  | { type: 'failed'; code: ErrorCode; message: string; hints: string[] };

export type LlmPendingAction = 'save' | 'test' | 'test-saved' | 'remove-key';

type Field = 'provider' | 'baseUrl' | 'model' | 'apiKey' | 'timeoutSeconds' | 'contextWindow';

/** Scheme, host and port: the server a saved key may be sent to (as worker/llm/base-url.ts). */
function originOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url.trim()).origin;
  } catch {
    return null;
  }
}

function toOutcome(result: ApiResult<LlmProfileTestResult>): LlmTestOutcome {
  if (!result.ok) {
    // Read when shown: a language switch re-words the error (api-errors.ts `serverError`).
    const error = result.error;
    return { type: 'failed', code: error.code, get message() { return error.message; }, get hints() { return error.hints ?? []; } };
  }
  const data = result.data;
  return data.ok
    ? { type: 'ok', latencyMs: data.latencyMs, model: data.model }
    : { type: 'failed', code: data.code, message: data.message, hints: data.hints };
}

export class LlmProfileSettings {
  readonly #api: LlmProfileApi;

  #profile = $state<LlmProfileView | null>(null);
  #loadError = $state<ErrorBody | null>(null);

  // The form. `#apiKey` is a newly typed key; empty keeps the saved one.
  #choice = $state<LlmChoice>('off');
  #baseUrl = $state('');
  #model = $state('');
  #apiKey = $state('');
  #timeoutSeconds = $state<number | null>(LLM_TIMEOUT_SECONDS.default);
  #contextWindow = $state<number | null>(null);

  #attempted = $state(false);
  #pending = $state<LlmPendingAction | null>(null);
  #serverError = $state<ErrorBody | null>(null);
  #serverErrorFrom = $state<LlmPendingAction | null>(null);
  #notice = $state<string | null>(null);
  #draftTest = $state<LlmTestOutcome | null>(null);
  #draftTestedAs = $state<string | null>(null);
  #savedTest = $state<LlmTestOutcome | null>(null);

  /** The body Save and Test send. Turning AI off keeps the saved connection for later. */
  readonly input: LlmProfileInput = $derived.by(() => {
    if (this.#choice === 'off') {
      const saved = this.#profile;
      return {
        provider: 'disabled',
        preset: saved?.preset ?? null,
        baseUrl: saved?.baseUrl ?? null,
        model: saved?.model ?? null,
        timeoutSeconds: saved?.timeoutSeconds ?? LLM_TIMEOUT_SECONDS.default,
        contextWindow: saved?.contextWindow ?? null,
      };
    }
    const key = this.#apiKey.trim();
    return {
      provider: 'openai-compatible',
      preset: this.#choice,
      baseUrl: this.#baseUrl.trim() || null,
      model: this.#model.trim() || null,
      ...(key === '' ? {} : { apiKey: key }),
      ...(this.#timeoutSeconds === null ? {} : { timeoutSeconds: this.#timeoutSeconds }),
      contextWindow: this.#contextWindow,
    };
  });

  /** The server a saved key is bound to, when there is one. */
  readonly savedKeyOrigin = $derived(this.#profile?.hasApiKey ? originOf(this.#profile.baseUrl) : null);

  /** Problems found before sending, keyed by field (the contract's rules, then the key rule). */
  readonly problems: Partial<Record<Field, string>> = $derived.by(() => {
    const input = this.input;
    const parsed = LlmProfileInput.safeParse(input);
    const fields: Partial<Record<Field, string>> = parsed.success ? {} : issuesByField(parsed.error);
    const checked = checkLlmProfileInput(input);
    if (checked.type === 'invalid') {
      const words = problemWords(checked.problem.code, checked.problem.message, checked.problem.hint);
      fields[checked.problem.field] ??= `${words.message} ${words.hint}`;
    }
    const profile = this.#profile;
    if (input.provider !== 'disabled' && input.apiKey === undefined && profile?.hasApiKey && input.baseUrl) {
      const next = originOf(input.baseUrl);
      if (next !== null && next !== this.savedKeyOrigin) {
        fields.apiKey ??= this.savedKeyOrigin
          ? t('llm.keyAgainTo', { saved: this.savedKeyOrigin, next })
          : t('llm.keyAgain');
      }
    }
    return fields;
  });

  readonly valid = $derived(Object.keys(this.problems).length === 0);

  /** Shown next to the fields: early problems once Test or Save was tried, then the server's details. */
  readonly fieldErrors: Partial<Record<Field, string>> = $derived({
    ...fieldErrors(this.#serverError),
    ...(this.#attempted ? this.problems : {}),
  });

  /** Whether the form differs from what is saved (a typed key always counts). */
  readonly dirty = $derived.by(() => {
    const profile = this.#profile;
    if (!profile) return false;
    if (this.#apiKey.trim() !== '') return true;
    if (this.#choice === 'off') return profile.provider !== 'disabled';
    return (
      profile.provider !== 'openai-compatible' ||
      profile.preset !== this.#choice ||
      (profile.baseUrl ?? '') !== this.#baseUrl.trim() ||
      (profile.model ?? '') !== this.#model.trim() ||
      profile.timeoutSeconds !== (this.#timeoutSeconds ?? LLM_TIMEOUT_SECONDS.default) ||
      profile.contextWindow !== this.#contextWindow
    );
  });

  /** The draft test was of other values than the form now holds. */
  readonly draftTestStale = $derived(this.#draftTest !== null && this.#draftTestedAs !== JSON.stringify(this.input));

  constructor(api: LlmProfileApi = llmProfileApi) {
    this.#api = api;
  }

  get profile(): LlmProfileView | null {
    return this.#profile;
  }
  get loadError(): ErrorBody | null {
    return this.#loadError;
  }
  get choice(): LlmChoice {
    return this.#choice;
  }
  get preset(): LlmPresetOption | undefined {
    return this.#choice === 'off' ? undefined : presetOption(this.#choice);
  }
  get pending(): LlmPendingAction | null {
    return this.#pending;
  }
  /** A refused Save or key removal (a refused test is shown as the test's outcome instead). */
  get saveError(): ErrorBody | null {
    return this.#serverErrorFrom === 'test' ? null : this.#serverError;
  }
  get notice(): string | null {
    return this.#notice;
  }
  get draftTest(): LlmTestOutcome | null {
    return this.#draftTest;
  }
  get savedTest(): LlmTestOutcome | null {
    return this.#savedTest;
  }

  // Form fields, bound by the form (`bind:value={settings.baseUrl}`).
  get baseUrl(): string {
    return this.#baseUrl;
  }
  set baseUrl(value: string) {
    this.#baseUrl = value;
  }
  get model(): string {
    return this.#model;
  }
  set model(value: string) {
    this.#model = value;
  }
  get apiKey(): string {
    return this.#apiKey;
  }
  set apiKey(value: string) {
    this.#apiKey = value;
  }
  get timeoutSeconds(): number | null {
    return this.#timeoutSeconds;
  }
  set timeoutSeconds(value: number | null) {
    this.#timeoutSeconds = typeof value === 'number' && Number.isFinite(value) ? value : null;
  }
  get contextWindow(): number | null {
    return this.#contextWindow;
  }
  set contextWindow(value: number | null) {
    this.#contextWindow = typeof value === 'number' && Number.isFinite(value) ? value : null;
  }

  /** Takes the answer of a GET (the page's `load`, or `reload()`). */
  accept(result: ApiResult<LlmProfileView>): void {
    if (result.ok) {
      this.#loadError = null;
      this.#show(result.data);
    } else {
      this.#loadError = result.error;
    }
  }

  async reload(): Promise<void> {
    this.accept(await this.#api.get());
  }

  /**
   * Picks a preset (pre-filling its base URL and suggested model) or turns AI off (the fields are
   * kept). Picking the saved preset again brings back the saved values.
   */
  choose(choice: LlmChoice): void {
    this.#choice = choice;
    this.#notice = null;
    if (choice === 'off') return;
    const saved = this.#profile;
    if (saved?.preset === choice && saved.baseUrl) {
      this.#baseUrl = saved.baseUrl;
      this.#model = saved.model ?? '';
      return;
    }
    const option = presetOption(choice);
    if (!option) return;
    this.#baseUrl = option.baseUrl;
    this.#model = option.model;
    if (option.demoKey && this.#apiKey === '' && this.savedKeyOrigin !== originOf(option.baseUrl)) this.#apiKey = option.demoKey;
  }

  /** POST …/test with the form's values; nothing is stored. */
  async testDraft(): Promise<void> {
    if (this.#pending || !this.#ready()) return;
    const input = this.input;
    this.#pending = 'test';
    this.#serverError = null;
    this.#notice = null;
    this.#draftTest = null;
    const result = await this.#api.testDraft(input);
    this.#draftTest = toOutcome(result);
    this.#draftTestedAs = JSON.stringify(input);
    if (!result.ok) this.#fail('test', result.error);
    this.#pending = null;
  }

  /** PUT: saves the form. The saved profile's health starts again at `unknown`. */
  async save(): Promise<boolean> {
    if (this.#pending || !this.#ready()) return false;
    this.#pending = 'save';
    this.#serverError = null;
    this.#notice = null;
    const result = await this.#api.save(this.input);
    this.#pending = null;
    if (!result.ok) {
      this.#fail('save', result.error);
      return false;
    }
    this.#show(result.data);
    this.#draftTest = null;
    this.#savedTest = null;
    this.#notice = result.data.provider === 'disabled' ? 'Saved: AI is turned off.' : 'Saved. Test the saved profile to record its health.';
    return true;
  }

  /** PUT the saved values with `apiKey: null`: the saved key is deleted. */
  async removeSavedKey(): Promise<void> {
    const saved = this.#profile;
    if (this.#pending || !saved?.hasApiKey) return;
    this.#pending = 'remove-key';
    this.#serverError = null;
    this.#notice = null;
    const result = await this.#api.save({
      provider: saved.provider,
      preset: saved.preset,
      baseUrl: saved.baseUrl,
      model: saved.model,
      timeoutSeconds: saved.timeoutSeconds,
      contextWindow: saved.contextWindow,
      apiKey: null,
    });
    this.#pending = null;
    if (!result.ok) {
      this.#fail('remove-key', result.error);
      return;
    }
    // Only the key changed on the server; the form keeps any edits in progress.
    this.#profile = result.data;
    this.#savedTest = null;
    this.#notice = t('llm.keyRemoved');
  }

  /** POST …/test without a body: tests the saved profile and records its health, then re-reads it. */
  async testSaved(): Promise<void> {
    if (this.#pending) return;
    this.#pending = 'test-saved';
    this.#notice = null;
    this.#savedTest = null;
    const result = await this.#api.testSaved();
    // The verdict and the health it recorded appear together.
    const fresh = await this.#api.get();
    if (fresh.ok) this.#profile = fresh.data;
    this.#savedTest = toOutcome(result);
    this.#pending = null;
  }

  /** Back to the state before the first `accept()` (tests, and a fresh start). */
  reset(): void {
    this.#profile = null;
    this.#loadError = null;
    this.#fill(null);
    this.#attempted = false;
    this.#pending = null;
    this.#serverError = null;
    this.#serverErrorFrom = null;
    this.#notice = null;
    this.#draftTest = null;
    this.#draftTestedAs = null;
    this.#savedTest = null;
  }

  #fail(action: LlmPendingAction, error: ErrorBody): void {
    this.#serverError = error;
    this.#serverErrorFrom = action;
  }

  #ready(): boolean {
    this.#attempted = true;
    return this.valid;
  }

  #show(profile: LlmProfileView): void {
    this.#profile = profile;
    this.#fill(profile);
    this.#attempted = false;
  }

  #fill(profile: LlmProfileView | null): void {
    this.#choice = profile?.provider === 'openai-compatible' ? (profile.preset ?? 'custom') : 'off';
    this.#baseUrl = profile?.baseUrl ?? '';
    this.#model = profile?.model ?? '';
    this.#apiKey = '';
    this.#timeoutSeconds = profile?.timeoutSeconds ?? LLM_TIMEOUT_SECONDS.default;
    this.#contextWindow = profile?.contextWindow ?? null;
  }
}
