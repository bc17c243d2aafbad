/**
 * The sender's interface language when the turn's prompt is composed after a restart: a message
 * carries it (the Worker knows the person), so this D1 read happens only for a turn accepted
 * before the object restarted. The project's content language comes with the kept baseline
 * (../overlay/baseline.ts), told to change like the rest of the project's settings.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../../../worker/db/client.ts';
import { users } from '../../../worker/db/schema.ts';
import { isLocale, type Locale } from '../../../shared/i18n/locales.ts';

export async function loadSenderLocale(db: Db, userId: string): Promise<Locale | null> {
  const row = await db.select({ locale: users.locale }).from(users).where(eq(users.id, userId)).get();
  return isLocale(row?.locale) ? row.locale : null;
}
