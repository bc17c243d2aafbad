/**
 * Client-side form checks with the same zod contracts the Worker parses with (shared/api), and
 * their words in the reader's language: the contracts' messages are English (the API's own
 * words), so each issue is mapped to a catalogue key by its field and zod issue code.
 */
import type { z } from 'zod';
import type { MessageKey, MessageValues } from './i18n/catalogue.ts';
import { t } from './i18n/i18n.svelte.ts';

/** The catalogue words for one issue: a key and the values of its placeholders. */
export interface IssueWords {
  key: MessageKey;
  values?: MessageValues;
}

/** The parts of a zod issue the mapping reads (zod's issue union, loosely: every field optional). */
export interface IssueLike {
  code?: string;
  path?: readonly PropertyKey[];
  origin?: string;
  format?: string;
  expected?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  keys?: readonly string[];
}

/**
 * Fields whose contract gives a more telling message than the generic one for its code. Keyed
 * `field:code` (or `field:code:format`); the field is the last name of the issue's path.
 */
const FIELD_WORDS: Record<string, MessageKey> = {
  'name:too_small': 'forms.name',
  'requiredApprovals:too_small': 'forms.approvals',
  'requiredApprovals:too_big': 'forms.approvals',
  'version:invalid_format:regex': 'forms.version',
  'id:invalid_format:regex': 'forms.packageId',
  'workflowId:invalid_format:regex': 'forms.packageId',
  'nodeId:invalid_format:regex': 'forms.packageId',
  'agentId:invalid_format:regex': 'forms.packageId',
  'apiKey:invalid_format:regex': 'forms.apiKey',
  // UpdateProjectInput's refine: a body with no field.
  'form:custom': 'forms.nothingToChange',
};

/** The name a form files an issue under: the last named segment of its path, else `form`. */
export function issueField(path: readonly PropertyKey[] | undefined): string {
  const named = (path ?? []).filter((segment): segment is string => typeof segment === 'string');
  return named.at(-1) ?? 'form';
}

/** The catalogue words for a zod issue: the field's own words if it has them, else its code's. */
export function issueWords(issue: IssueLike): IssueWords {
  const field = issueField(issue.path);
  const own = FIELD_WORDS[`${field}:${issue.code}:${issue.format}`] ?? FIELD_WORDS[`${field}:${issue.code}`];
  if (own) return { key: own };
  switch (issue.code) {
    case 'too_small':
      if (issue.minimum === undefined) return { key: 'forms.invalid' };
      if (issue.origin === 'string') {
        return Number(issue.minimum) <= 1 ? { key: 'forms.required' } : { key: 'forms.tooShort', values: { count: Number(issue.minimum) } };
      }
      return { key: 'forms.tooSmall', values: { minimum: Number(issue.minimum) } };
    case 'too_big':
      if (issue.maximum === undefined) return { key: 'forms.invalid' };
      if (issue.origin === 'string') return { key: 'forms.tooLong', values: { count: Number(issue.maximum) } };
      return { key: 'forms.tooBig', values: { maximum: Number(issue.maximum) } };
    case 'invalid_format':
      return { key: issue.format === 'email' ? 'forms.email' : 'forms.format' };
    case 'invalid_type':
      return { key: issue.expected === 'int' ? 'forms.wholeNumber' : 'forms.wrongType' };
    case 'invalid_value':
      return { key: 'forms.choose' };
    case 'unrecognized_keys':
      return { key: 'forms.unknownFields', values: { fields: (issue.keys ?? []).join(', ') } };
    default:
      return { key: 'forms.invalid' };
  }
}

/** The first message per field of a failed `safeParse`, in the reader's language, keyed by the field's name. */
export function issuesByField(error: z.ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issueField(issue.path);
    if (key in fields) continue;
    const words = issueWords(issue as IssueLike);
    fields[key] = t(words.key, words.values);
  }
  return fields;
}
