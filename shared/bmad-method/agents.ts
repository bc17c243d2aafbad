/**
 * Agents of a BMAD-METHOD module: each `*.agent.yaml` (`agent: {metadata, persona, menu}`) becomes
 * a `.bmad` agent. Missing required fields are filled with a visible placeholder and a warning;
 * with no agent file at all the package gets one placeholder agent, also with a warning.
 */
import { parse } from 'yaml';
import { ID_PATTERN } from '../bmad/formats.ts';
import { warningIssue, type ValidationIssue } from '../bmad/issues.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

export const PLACEHOLDER = 'Placeholder: written on import, please describe';

export function isAgentFile(path: string): boolean {
  return /\.agent\.ya?ml$/iu.test(path);
}

function idFrom(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1).replace(/\.agent\.ya?ml$|\.md$/iu, '');
  const id = base.replace(/[^A-Za-z0-9._:-]+/gu, '-').replace(/^[^A-Za-z0-9]+/u, '');
  return ID_PATTERN.test(id) ? id : 'agent';
}

export function placeholderAgent(id = 'bmad-agent'): Record<string, unknown> {
  return {
    id,
    metadata: { name: 'BMAD agent', title: 'Workflow facilitator', icon: '🤖', description: PLACEHOLDER },
    persona: { role: PLACEHOLDER, identity: PLACEHOLDER, communication_style: PLACEHOLDER, principles: PLACEHOLDER },
  };
}

export function agentFromYaml(path: string, source: string, taken: Set<string>): { agent: Record<string, unknown>; issues: ValidationIssue[] } {
  let doc: unknown;
  try {
    doc = parse(source, { maxAliasCount: 100 });
  } catch {
    doc = undefined;
  }
  return agentFromDoc(path, doc, taken);
}

/** The string and flag fields a menu item keeps (agents.json's AgentMenuItem). */
const MENU_TEXT = ['trigger', 'description', 'workflow', 'exec', 'action', 'data', 'validate-workflow'] as const;
const MENU_FLAGS = ['ide-only', 'web-only'] as const;

/**
 * A `*.agent.yaml` menu in the agents.json shape: each item with a description, its known text
 * fields and flags; an item without a description (nothing to show) is left out. The YAML file
 * itself stays in the package, so nothing of it is lost on export.
 */
export function menuFromYaml(menu: unknown): Array<Record<string, string | boolean>> {
  if (!Array.isArray(menu)) return [];
  return menu.flatMap((item) => {
    if (!isRecord(item) || !text(item.description)) return [];
    const kept: Record<string, string | boolean> = {};
    for (const field of MENU_TEXT) if (text(item[field])) kept[field] = text(item[field])!;
    for (const flag of MENU_FLAGS) if (typeof item[flag] === 'boolean') kept[flag] = item[flag];
    return [kept];
  });
}

/**
 * An agent from its document (`{agent: {metadata, persona, menu}}`, as `*.agent.yaml` holds it);
 * `menu`: items already in the agents.json shape (a compiled agent's), else the document's own.
 */
export function agentFromDoc(
  path: string,
  doc: unknown,
  taken: Set<string>,
  compiledMenu: ReadonlyArray<Record<string, string>> = [],
): { agent: Record<string, unknown>; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const root = isRecord(doc) && isRecord(doc.agent) ? doc.agent : {};
  const menu = compiledMenu.length > 0 ? compiledMenu : menuFromYaml(root.menu);
  const metadata = isRecord(root.metadata) ? root.metadata : {};
  const persona = isRecord(root.persona) ? root.persona : {};
  let id = idFrom(path);
  for (let n = 2; taken.has(id); n++) id = `${idFrom(path)}-${n}`;
  taken.add(id);
  const filled: string[] = [];
  const pick = (value: unknown, field: string) => {
    const found = text(value);
    if (!found) filled.push(field);
    return found ?? PLACEHOLDER;
  };
  const principles = Array.isArray(persona.principles) ? persona.principles.map(text).filter(Boolean).join('\n') : persona.principles;
  const agent = {
    id,
    metadata: {
      name: pick(metadata.name, 'name'),
      title: pick(metadata.title, 'title'),
      icon: pick(metadata.icon, 'icon'),
      ...(text(metadata.module) ? { module: text(metadata.module) } : {}),
      ...(text(metadata.description) ? { description: text(metadata.description) } : {}),
      sourceId: path,
    },
    persona: {
      role: pick(persona.role, 'persona.role'),
      identity: pick(persona.identity, 'persona.identity'),
      communication_style: pick(persona.communication_style, 'persona.communication_style'),
      principles: pick(principles, 'persona.principles'),
    },
    ...(menu.length > 0 ? { menu } : {}),
  };
  if (filled.length > 0) {
    issues.push(
      warningIssue('BMAD_AGENT_INCOMPLETE', path, `Agent "${id}" has no ${filled.join(', ')}; a placeholder was written.`, {
        hint: 'Fill these in the agent editor after the import.',
      }),
    );
  }
  return { agent, issues };
}
