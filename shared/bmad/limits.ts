/**
 * Size and count limits for .bmad packages, shared by the validator, the importer and the asset API.
 * Asset limits are the original builder's (256 KiB, 2 MiB, 200 files); the text and YAML guards are ours, so a
 * hostile file yields an issue instead of exhausting memory or the stack.
 */

/** One asset file, in UTF-8 bytes (original: 256 KiB). */
export const MAX_ASSET_BYTES = 256 * 1024;
/** All assets of one project together, in UTF-8 bytes (original: 2 MiB). */
export const MAX_ASSETS_TOTAL_BYTES = 2 * 1024 * 1024;
/** Asset files per project (original: 200). */
export const MAX_ASSET_COUNT = 200;
/** The longest asset path: the asset API takes paths up to this length (shared/api/store.ts), so a longer one could be neither read nor deleted. */
export const MAX_ASSET_PATH_CHARS = 300;
/** Extensions an asset may have; assets are text only. */
export const ASSET_EXTENSIONS = ['.md', '.txt', '.json', '.yaml', '.yml', '.csv'] as const;

/** Any single package text file (bmad.json, agents.json, a graph, workflow.md, a step), in UTF-8 bytes. */
export const MAX_TEXT_FILE_BYTES = 1024 * 1024;
/** The YAML between the frontmatter fences. Real frontmatter is a few hundred bytes. */
export const MAX_FRONTMATTER_BYTES = 64 * 1024;
/** YAML alias expansions per document: stops "billion laughs" (yaml's own default is also 100). */
export const MAX_YAML_ALIAS_COUNT = 100;
/** Nesting depth of parsed frontmatter values; deeper data is refused before anything walks it. */
export const MAX_FRONTMATTER_DEPTH = 64;

/** UTF-8 length of a string without allocating an encoded copy. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Whether `text` is longer than `limit` UTF-8 bytes. A UTF-16 code unit is 1 to 3 UTF-8 bytes,
 * so most texts are decided by their length alone, without walking them.
 */
export function exceedsUtf8Bytes(text: string, limit: number): boolean {
  if (text.length * 3 <= limit) return false;
  if (text.length > limit) return true;
  return utf8ByteLength(text) > limit;
}
