/** Sanitised Markdown rendering; the renderer and its reactive loading live in markdown.svelte.ts. */
export { renderMarkdown } from './markdown.svelte.ts';
