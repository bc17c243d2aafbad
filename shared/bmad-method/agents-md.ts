/**
 * Compiled BMAD agents: the `.md` files an installed BMAD holds under `_bmad/<module>/agents/`, a
 * frontmatter (`name`, `description`) and an XML block `<agent id="pm.agent.yaml" name="John"
 * title="Product Manager" icon="📋">` with `<persona>` (`<role>`, `<identity>`,
 * `<communication_style>`, `<principles>`) and `<menu>` (`<item cmd="…" workflow="…">[CP] Create
 * PRD</item>`). Each becomes an agent as a `*.agent.yaml` does (agents.ts); the file stays an asset.
 */
import type { ValidationIssue } from '../bmad/issues.ts';
import { agentFromDoc } from './agents.ts';
import { readStepText } from './links.ts';

const AGENT_TAG = /<agent\b([^>]*)>/u;
const ATTRIBUTE = /([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/gu;

function decode(text: string): string {
  return text
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/gu, '$1')
    .replace(/&lt;/gu, '<')
    .replace(/&gt;/gu, '>')
    .replace(/&quot;/gu, '"')
    .replace(/&apos;/gu, "'")
    .replace(/&amp;/gu, '&')
    .trim();
}

function attributes(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(ATTRIBUTE)) out[m[1]!] = decode(m[2] ?? m[3] ?? '');
  return out;
}

/** The text of the first `<tag>…</tag>` inside `xml`, or undefined. */
function element(xml: string, tag: string): string | undefined {
  const m = new RegExp(`<${tag}\\b[^>]*>([\\s\\S]*?)</${tag}>`, 'u').exec(xml);
  return m ? decode(m[1]!) : undefined;
}

/** A markdown file holding a compiled agent: an `<agent …>` block with a `<persona>`. */
export function isCompiledAgentFile(path: string, content: string): boolean {
  return /\.md$/iu.test(path) && AGENT_TAG.test(content) && /<persona\b/u.test(content) && /<\/agent>/u.test(content);
}

export function agentFromCompiledMd(path: string, content: string, taken: Set<string>): { agent: Record<string, unknown>; issues: ValidationIssue[] } {
  const front = readStepText(content).frontmatter;
  const attrs = attributes(AGENT_TAG.exec(content)?.[1] ?? '');
  const xml = content.slice(content.search(AGENT_TAG));
  const persona = element(xml, 'persona') !== undefined ? xml.slice(xml.indexOf('<persona'), xml.indexOf('</persona>')) : '';
  const menuXml = /<menu\b[^>]*>([\s\S]*?)<\/menu>/u.exec(xml)?.[1] ?? '';
  const menu = [...menuXml.matchAll(/<item\b([^>]*)>([\s\S]*?)<\/item>/gu)]
    .map((m) => {
      const a = attributes(m[1]!);
      const description = decode(m[2]!).replace(/\s+/gu, ' ');
      return {
        ...(a.cmd ? { trigger: a.cmd } : {}),
        description,
        ...(a.workflow ? { workflow: a.workflow } : {}),
        ...(a.exec ? { exec: a.exec } : {}),
        ...(a.action ? { action: a.action } : {}),
        ...(a.data ? { data: a.data } : {}),
      };
    })
    .filter((item) => item.description);
  const doc = {
    agent: {
      metadata: {
        name: attrs.name,
        title: attrs.title,
        icon: attrs.icon,
        ...(typeof front.description === 'string' ? { description: front.description } : {}),
      },
      persona: {
        role: element(persona, 'role'),
        identity: element(persona, 'identity'),
        communication_style: element(persona, 'communication_style'),
        principles: element(persona, 'principles'),
      },
    },
  };
  return agentFromDoc(path, doc, taken, menu);
}
