/** Client-side form checks with the same zod contracts the Worker parses with (shared/api). */
import type { z } from 'zod';

/** The first message per field of a failed `safeParse`, keyed by the field's name. */
export function issuesByField(error: z.ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.filter((segment) => typeof segment === 'string').at(-1) ?? 'form';
    if (!(key in fields)) fields[key] = issue.message;
  }
  return fields;
}
