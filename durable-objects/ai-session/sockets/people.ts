/**
 * What the session object knows of the people asking: each person's role (members.ts), the
 * sign-outs it was told (sign-outs.ts) and the logins the Worker checked (known-callers.ts). The
 * Worker's checks and the project channel feed it; the sockets and a message from a known login
 * (`sender`) read it, never D1.
 */
import { atLeast } from '../../../shared/api/common.ts';
import { isLocale } from '../../../shared/i18n/locales.ts';
import { IDENTITY_HEADERS } from '../../../shared/protocol.ts';
import type { Actor, VerifiedCaller } from '../../../shared/ai/session-rpc.ts';
import type { CallerChanged, SignedOut } from '../../../shared/ai/project-channel.ts';
import type { SealedLlmProfile } from '../../../shared/llm/types.ts';
import { KnownCallers, type KnownLogin } from './known-callers.ts';
import { Members } from './members.ts';
import { PersonBudgets } from './person-budgets.ts';
import { SignOuts } from './sign-outs.ts';
import type { SocketState } from './socket-state.ts';

/** Who sends a message from a kept login, with the AI profile to run it with. */
export interface KnownSender {
  actor: Actor;
  senderProfile: SealedLlmProfile | null;
  login: KnownLogin;
}

export class People {
  readonly members: Members;
  readonly signOuts: SignOuts;
  readonly callers: KnownCallers;
  /** Each person's budgets for the expensive socket frames, kept across hibernation (person-budgets.ts). */
  readonly budgets: PersonBudgets;

  constructor(sql: SqlStorage, now: () => number) {
    this.budgets = new PersonBudgets(sql);
    this.members = new Members(sql);
    this.signOuts = new SignOuts(sql);
    this.callers = new KnownCallers(sql, now);
  }

  /** A login, role and (when read) AI profile the Worker just checked against D1 for a request. */
  remember(actor: Actor, caller: VerifiedCaller, senderProfile: SealedLlmProfile | null | undefined): void {
    this.members.seed(actor.userId, actor.role, caller.readAt);
    this.callers.rememberLogin(caller, actor);
    if (senderProfile !== undefined) this.callers.rememberProfile(actor.userId, senderProfile, caller.readAt);
  }

  /** The login of a socket the hub admitted (its identity headers, set by the Worker); one without an expiry is not kept. */
  rememberUpgrade(headers: Headers, state: SocketState): void {
    const expiresAt = Number(headers.get(IDENTITY_HEADERS.loginExpiresAt) ?? Number.NaN);
    if (!Number.isFinite(expiresAt)) return;
    const locale = headers.get(IDENTITY_HEADERS.locale);
    this.callers.rememberLogin(
      { loginSession: state.loginSession, readAt: state.readAt, expiresAt },
      { userId: state.userId, name: state.name, ...(isLocale(locale) ? { locale } : {}) },
    );
  }

  /** The channel's word on a person: a change forgets what was kept of them; a sign-out drops the logins it ended. */
  told(message: CallerChanged | SignedOut): void {
    if (message.type === 'callerChanged') this.callers.forget(message.userId, message.at);
    else this.callers.forgetLogins(message.userId, message.loginSessionId);
  }

  /**
   * The sender of a message from `loginSession` when the object can vouch for all of it: the login is
   * kept and young enough, not signed out, its person an editor or owner as the channel last said, and
   * their AI profile kept. Null otherwise: the Worker then asks D1, and answers as it always did
   * (a viewer's refusal, a removed member's 404, a signed-out cookie's 401 come from there).
   */
  sender(loginSession: string): KnownSender | null {
    const login = this.callers.login(loginSession);
    if (!login || this.signOuts.ended(login.userId, loginSession, login.readAt)) return null;
    const role = this.members.roleOf(login.userId);
    if (!role || !atLeast(role, 'editor')) return null;
    const senderProfile = this.callers.profile(login.userId);
    if (senderProfile === undefined) return null;
    return { actor: { userId: login.userId, name: login.name, role, ...(login.locale ? { locale: login.locale } : {}) }, senderProfile, login };
  }
}
