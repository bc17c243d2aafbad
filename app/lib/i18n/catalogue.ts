/**
 * The shape of the message catalogue and the keys it has. `en.ts` is the reference; every other
 * language is typed as `Messages`, so a key missing from a translation (or a key the code uses
 * that no catalogue has) fails the type check, not the person reading the page.
 */
import type { en } from './en.ts';
import type { workbenchEn } from './en/workbench.ts';

/** The whole English catalogue: what every page loads, and the Workbench's area (`workbench-words.ts`). */
type English = typeof en & { workbench: typeof workbenchEn };

type Strings<T> = { [K in keyof T]: T[K] extends string ? string : Strings<T[K]> };

/** Every catalogue has exactly the English catalogue's keys, each a string. */
export type Messages = Strings<English>;

type Leaves<T, Prefix extends string = ''> = {
  [K in keyof T & string]: T[K] extends string ? `${Prefix}${K}` : Leaves<T[K], `${Prefix}${K}.`>;
}[keyof T & string];

/** `files_one` / `files_other` are one key, `files`, chosen by `count` (i18next's plural rule). */
type WithoutPlural<K extends string> = K extends `${infer Base}_${'one' | 'other'}` ? Base : K;

/** A key `t()` accepts: a dotted path to a string of the English catalogue. */
export type MessageKey = WithoutPlural<Leaves<English>>;

/** Values put into `{{name}}` placeholders; `count` also picks the plural form. */
export type MessageValues = Record<string, string | number>;
