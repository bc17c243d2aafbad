/**
 * How names sort (projects, agents, members): by pinyin for Chinese, alphabetically for Latin,
 * through `Intl.Collator('zh-CN')`, the same in the Worker (workerd ships full ICU), Chromium and
 * Node, whichever language the interface is in. Code point order was the alternative and is
 * useless to a reader: it puts 张 before 李 before 阿 (U+5F20 < U+674E < U+963F), where a Chinese
 * reader expects 阿 李 张. Each script stays together (CLDR's zh order: Chinese names, then Latin
 * ones), case and accents do not matter, digits sort as numbers ("step 2" before "step 10");
 * equal names keep a stable order by the caller's tie-breaker.
 */
const collator = new Intl.Collator('zh-CN', { sensitivity: 'base', numeric: true });

export function compareNames(a: string, b: string): number {
  return collator.compare(a, b);
}

/** `items` sorted by `name(item)`, ties by `tie(item)` in code point order; a new array. */
export function sortByName<T>(items: readonly T[], name: (item: T) => string, tie: (item: T) => string = () => ''): T[] {
  return [...items].sort((x, y) => compareNames(name(x), name(y)) || (tie(x) < tie(y) ? -1 : tie(x) > tie(y) ? 1 : 0));
}
