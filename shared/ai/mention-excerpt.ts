/**
 * The plain-text excerpt of a comment kept in a mention notice: the comment's markdown read by
 * `marked`'s lexer and only its text kept (raw HTML dropped, links and images reduced to their
 * words), whitespace collapsed, cut at MENTION_EXCERPT_CHARS. A notice is shown as text, never HTML.
 */
import { Marked, type Token } from 'marked';

export const MENTION_EXCERPT_CHARS = 200;

const lexer = new Marked({ gfm: true });
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

function textOf(tokens: readonly Token[], out: string[]): void {
  for (const token of tokens) {
    if (token.type === 'html') continue;
    if ('tokens' in token && Array.isArray(token.tokens) && token.tokens.length > 0) textOf(token.tokens, out);
    else if (token.type === 'list') for (const item of token.items as Token[]) textOf([item], out);
    else if (token.type === 'image') out.push(token.text);
    else if ('text' in token && typeof token.text === 'string') out.push(token.text);
    out.push(' ');
  }
}

export function mentionExcerpt(markdown: string): string {
  const out: string[] = [];
  textOf(lexer.lexer(markdown), out);
  // Entities as typed read as their characters; then tags the lexer left inside text (one split
  // across lines, or spelled with entities) go too: the notice is plain text.
  const plain = out
    .join('')
    .replace(/&(amp|lt|gt|quot|#39);/gu, (_, name: string) => ENTITIES[name]!).replace(/<\/?[a-z][^>]*>?/giu, ' ').replace(/\s+/gu, ' ').trim();
  return plain.length > MENTION_EXCERPT_CHARS ? `${plain.slice(0, MENTION_EXCERPT_CHARS - 1).trimEnd()}…` : plain;
}
