/**
 * The two languages a turn's prompt names (../prompt/language.ts), read from D1 when the prompt is
 * composed: the project's content language, and the interface language the sender chose for
 * their account (null when they never chose one). Read per turn, not cached with the baseline, so
 * a change in Settings or in the top bar counts from the next message on.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../../../worker/db/client.ts';
import { projects, users } from '../../../worker/db/schema.ts';
import { parseContentLanguage, type ContentLanguage } from '../../../shared/i18n/content-language.ts';
import { isLocale, type Locale } from '../../../shared/i18n/locales.ts';

export async function loadTurnLanguages(db: Db, projectId: string, userId: string): Promise<{ contentLanguage: ContentLanguage; senderLocale: Locale | null }> {
  const [project, user] = await db.batch([
    db.select({ contentLanguage: projects.contentLanguage }).from(projects).where(eq(projects.id, projectId)),
    db.select({ locale: users.locale }).from(users).where(eq(users.id, userId)),
  ]);
  const locale = user[0]?.locale;
  return { contentLanguage: parseContentLanguage(project[0]?.contentLanguage), senderLocale: isLocale(locale) ? locale : null };
}
