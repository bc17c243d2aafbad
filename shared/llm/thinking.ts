/**
 * Reasoning a server leaves in a model's content: DeepSeek-R1 distills, QwQ and Qwen3 behind Ollama,
 * or vLLM started without a reasoning parser, answer `<think>…</think>` and then the answer. When the
 * chat template opens the block itself (it ends the prompt with `<think>`), the content starts
 * mid-thought with no opening tag and the reasoning ends at the first `</think>`. It is never the
 * answer: not streamed to viewers, not stored, not sent back to the model, not read as the final
 * answer or as tool calls written as text. An unclosed block is all reasoning.
 *
 * `ThinkingFilter` splits content as it streams, whatever the chunk boundaries (a tag may arrive one
 * character at a time). Content that does not open with `<think>` and does not start like a JSON
 * answer (`{`, `[`, a fence) is held back until a `</think>` shows it was reasoning or the stream ends
 * and shows it was the answer: streamed prose comes at the end of its response, the price of never
 * showing reasoning that only its end reveals as such.
 */
const OPEN = '<think>';
const CLOSE = '</think>';

export interface ThinkingSplit {
  /** Answer text, released. */
  text: string;
  /** Reasoning, released. */
  thinking: string;
}

type State = 'start' | 'inside' | 'holding' | 'after' | 'answer';

/** How many characters at the end of `text` could be the start of `tag` (kept until the next chunk decides). */
function partialTagAt(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) if (tag.startsWith(text.slice(-n))) return n;
  return 0;
}

export class ThinkingFilter {
  #state: State = 'start';
  #buffer = '';

  /** Adds a piece of content; returns what can be released now. */
  push(piece: string): ThinkingSplit {
    this.#buffer += piece;
    const out: ThinkingSplit = { text: '', thinking: '' };
    for (;;) {
      const before = this.#state;
      this.#step(out);
      if (this.#state === before) return out;
    }
  }

  /** The stream ended: releases what was held (held prose was the answer; an unclosed block is reasoning). */
  end(): ThinkingSplit {
    const rest = this.#buffer;
    this.#buffer = '';
    const state = this.#state;
    this.#state = 'answer';
    return state === 'inside' ? { text: '', thinking: rest } : { text: state === 'after' ? rest.trimStart() : rest, thinking: '' };
  }

  /** One state's work on the buffer; a state change makes push run the next. */
  #step(out: ThinkingSplit): void {
    switch (this.#state) {
      case 'start': {
        const start = this.#buffer.trimStart();
        if (start === '' || (start.length < OPEN.length && OPEN.startsWith(start))) return;
        if (start.startsWith(OPEN)) {
          this.#buffer = start.slice(OPEN.length);
          this.#state = 'inside';
        } else this.#state = /^[{[`]/u.test(start) ? 'answer' : 'holding';
        return;
      }
      case 'inside':
      case 'holding': {
        const at = this.#buffer.indexOf(CLOSE);
        if (at !== -1) {
          out.thinking += this.#buffer.slice(0, at);
          this.#buffer = this.#buffer.slice(at + CLOSE.length);
          this.#state = 'after';
        } else if (this.#state === 'inside') {
          const keep = partialTagAt(this.#buffer, CLOSE);
          out.thinking += this.#buffer.slice(0, this.#buffer.length - keep);
          this.#buffer = this.#buffer.slice(this.#buffer.length - keep);
        }
        return;
      }
      case 'after': {
        // The whitespace between the reasoning and the answer is neither.
        this.#buffer = this.#buffer.trimStart();
        if (this.#buffer !== '') this.#state = 'answer';
        return;
      }
      case 'answer': {
        out.text += this.#buffer;
        this.#buffer = '';
        return;
      }
    }
  }
}

/** Whole content split into its answer text and its reasoning. */
export function splitThinking(content: string): ThinkingSplit {
  const filter = new ThinkingFilter();
  const first = filter.push(content);
  const rest = filter.end();
  return { text: first.text + rest.text, thinking: first.thinking + rest.thinking };
}

/** The content without its reasoning (unchanged when it has none). */
export function withoutThinking(content: string): string {
  return splitThinking(content).text;
}
