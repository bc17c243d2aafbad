/** Small display formatters shared by the pages (sizes, dates, numbers), in the interface language. */
import { localeTag } from './i18n/i18n.svelte.ts';

const UNITS = ['B', 'KiB', 'MiB', 'GiB'] as const;

/** `1536` → `1.5 KiB`. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 || value >= 10 ? 0 : 1;
  return `${value.toFixed(digits)} ${UNITS[unit]}`;
}

// One formatter per language: building an Intl formatter costs far more than using one.
const dateFormats = new Map<string, Intl.DateTimeFormat>();
const numberFormats = new Map<string, Intl.NumberFormat>();
const relativeFormats = new Map<string, Intl.RelativeTimeFormat>();

function cached<T>(cache: Map<string, T>, tag: string, make: () => T): T {
  let value = cache.get(tag);
  if (!value) cache.set(tag, (value = make()));
  return value;
}

/** An ISO date from the API in the interface language; an unreadable one is shown as it came. */
export function formatDate(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const tag = localeTag();
  return cached(dateFormats, tag, () => new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeStyle: 'short' })).format(date);
}

/** `12345` → `12,345` (English) or `12,345` (Chinese uses the same grouping); digits stay Western. */
export function formatNumber(value: number): string {
  const tag = localeTag();
  return cached(numberFormats, tag, () => new Intl.NumberFormat(tag)).format(value);
}

const RELATIVE_STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 7],
  ['week', 4.35],
  ['month', 12],
  ['year', Number.POSITIVE_INFINITY],
];

/** `3 minutes ago` / `3分钟前`: how long before `now` the ISO date was, in the interface language. */
export function formatRelative(iso: string, now: number = Date.now()): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return iso;
  const tag = localeTag();
  const format = cached(relativeFormats, tag, () => new Intl.RelativeTimeFormat(tag, { numeric: 'auto' }));
  let amount = (time - now) / 1000;
  for (const [unit, size] of RELATIVE_STEPS) {
    if (Math.abs(amount) < size) return format.format(Math.round(amount), unit);
    amount /= size;
  }
  return format.format(Math.round(amount), 'year');
}
