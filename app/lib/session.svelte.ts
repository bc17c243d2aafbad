/**
 * Who is signed in. The root layout creates one `Session`, hands it down through context
 * (`setSession` / `getSession`) and loads it once; the top bar, the route guard and the sign-in
 * pages read and update it. The sign-in itself is an HttpOnly cookie the client never sees.
 */
import { createContext } from 'svelte';
import type { UserView } from '../../shared/api/index.ts';
import type { ErrorBody } from '../../shared/errors.ts';
import type { Locale } from '../../shared/i18n/locales.ts';
import { api as browserApi, type Api, type ApiResult } from './api.ts';
import { useReaderLocale } from './i18n/reader-locale.ts';

/** `unknown` until the first `load()`; `error` when the server could not say (not a 401). */
export type SessionStatus = 'unknown' | 'loading' | 'signed-in' | 'signed-out' | 'error';

export class Session {
  readonly #api: Pick<Api, 'auth'>;
  #user = $state<UserView | null>(null);
  #status = $state<SessionStatus>('unknown');
  #error = $state<ErrorBody | null>(null);
  #loading: Promise<void> | null = null;

  readonly signedIn = $derived(this.#user !== null);
  /** The guard may decide once this is true (the server has answered, one way or the other). */
  readonly settled = $derived(this.#status === 'signed-in' || this.#status === 'signed-out');

  constructor(api: Pick<Api, 'auth'> = browserApi) {
    this.#api = api;
  }

  get user(): UserView | null {
    return this.#user;
  }

  get status(): SessionStatus {
    return this.#status;
  }

  /** Why `load()` failed when the status is `error`. */
  get error(): ErrorBody | null {
    return this.#error;
  }

  /** Asks the server who is signed in; concurrent calls share one request. */
  load(): Promise<void> {
    this.#loading ??= this.#fetchMe().finally(() => {
      this.#loading = null;
    });
    return this.#loading;
  }

  async #fetchMe(): Promise<void> {
    this.#status = 'loading';
    const result = await this.#api.auth.me();
    if (result.ok) {
      this.signIn(result.data.user);
    } else if (result.status === 401) {
      this.expire();
    } else {
      this.#user = null;
      this.#error = result.error;
      this.#status = 'error';
    }
  }

  /** After a successful register or login: the server has set the cookie and returned the user. */
  signIn(user: UserView): void {
    // The language chosen on the account follows the person to every device.
    if (user.locale) void useReaderLocale(user.locale);
    this.#user = user;
    this.#error = null;
    this.#status = 'signed-in';
  }

  /** The server said the sign-in is missing or no longer valid. */
  expire(): void {
    this.#user = null;
    this.#error = null;
    this.#status = 'signed-out';
  }

  /** Signs out on the server; an already expired sign-in counts as signed out. */
  async logout(): Promise<ApiResult<{ ok: true }>> {
    const result = await this.#api.auth.logout();
    if (result.ok || result.status === 401) {
      this.expire();
      return { ok: true, data: { ok: true } };
    }
    return result;
  }

  /**
   * Switch the interface language (at once, or once its words are loaded), and remember it on the
   * account when someone is signed in (a failure to remember leaves the switch in place for this
   * device; a language whose words could not be loaded is neither used nor remembered).
   */
  async chooseLocale(next: Locale): Promise<void> {
    if (!(await useReaderLocale(next)) || !this.#user) return;
    const result = await this.#api.auth.updateMe({ locale: next });
    if (result.ok) this.#user = result.data.user;
  }

  /** Back to the state before the first `load()` (tests, and a fresh start). */
  reset(): void {
    this.#user = null;
    this.#error = null;
    this.#status = 'unknown';
    this.#loading = null;
  }
}

export const [getSession, setSession] = createContext<Session>();
