// JSON text the way the demo package writes it: objects one key per line, lists of plain values on
// one line, two-space indent, final newline. Keeps a rewritten graph or data file close to the
// original, so the diff shows the demo's edit and not a reformatting.

function plain(value: unknown): boolean {
  return value === null || typeof value !== 'object';
}

function write(value: unknown, indent: string): string {
  if (plain(value)) return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every(plain)) return `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
    return `[\n${value.map((v) => `${inner}${write(v, inner)}`).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${write(v, inner)}`).join(',\n')}\n${indent}}`;
}

export function jsonText(value: unknown): string {
  return `${write(value, '')}\n`;
}
