/** What every read tool and the context envelope read from: the effective view, the session and the project's domain profile. */
import type { SessionMeta } from '../../../shared/ai/session.ts';
import type { DomainProfile } from '../../../shared/api/projects.ts';
import type { EffectiveView } from '../overlay/effective-view.ts';

export interface ReadToolContext {
  view: EffectiveView;
  session: SessionMeta;
  domainProfile: DomainProfile | Record<string, unknown>;
}
