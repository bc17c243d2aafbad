/**
 * Asset path and size rules (schemas/bmad-v1.1/README.md, "Paths and sizes"): used by validation stage 5 and by the asset API as
 * the user types. A path is `assets/...`, uses only `[A-Za-z0-9._/-]`, has no empty, `.` or `..`
 * segment, is at most 300 characters, and ends in .md .txt .json .yaml .yml or .csv (any letter case); no two paths may collide once unpacked
 * (assetPathClash). Codes are API error codes (shared/errors.ts).
 */
import type { ErrorCode } from '../errors.ts';
import { ASSET_EXTENSIONS, MAX_ASSET_BYTES, MAX_ASSET_COUNT, MAX_ASSET_PATH_CHARS, MAX_ASSETS_TOTAL_BYTES, utf8ByteLength } from './limits.ts';

export type AssetCheck =
  | { ok: true; path: string }
  | { ok: false; code: Extract<ErrorCode, 'ASSET_INVALID_PATH' | 'ASSET_TOO_LARGE' | 'ASSET_LIMIT_REACHED'>; message: string; hint: string };

const ALLOWED_CHARS = /^[A-Za-z0-9._/-]*$/u;
const EXAMPLE = 'e.g. assets/templates/plan.md';

function invalid(message: string, hint: string): AssetCheck {
  return { ok: false, code: 'ASSET_INVALID_PATH', message, hint };
}

export function checkAssetPath(path: string): AssetCheck {
  if (typeof path !== 'string' || path === '') return invalid('The asset path is empty.', `Enter a path under assets/, ${EXAMPLE}.`);
  if (path.length > MAX_ASSET_PATH_CHARS) {
    return invalid(`The asset path is ${path.length} characters long; the limit is ${MAX_ASSET_PATH_CHARS}.`, 'Shorten the file name or its folders.');
  }
  if (path.includes('\0')) return invalid('The asset path contains a NUL character.', 'Remove the invisible character.');
  if (path.includes('\\')) return invalid('The asset path contains a backslash (\\).', 'Separate folders with a forward slash (/).');
  if (path.startsWith('/') || /^[A-Za-z]:/u.test(path)) {
    return invalid('The asset path is absolute.', `Use a path relative to the package, ${EXAMPLE}.`);
  }
  const bad = [...path].find((c) => !ALLOWED_CHARS.test(c));
  if (bad !== undefined) {
    const shown = bad === ' ' ? 'a space' : /\p{C}/u.test(bad) ? 'an invisible character' : `"${bad}"`;
    return invalid(`The asset path contains ${shown}.`, 'Use only letters A-Z and a-z, digits, ".", "_", "-" and "/".');
  }
  const segments = path.split('/');
  if (segments.some((s) => s === '.' || s === '..')) {
    return invalid('The asset path contains a "." or ".." folder.', `Write the path without . or .. parts, ${EXAMPLE}.`);
  }
  if (segments.some((s) => s === '')) {
    return invalid('The asset path has an empty folder name (// or a trailing /).', `Name every folder and the file, ${EXAMPLE}.`);
  }
  if (segments[0] !== 'assets' || segments.length < 2) {
    return invalid('Assets must live under the assets/ folder.', `Start the path with assets/, ${EXAMPLE}.`);
  }
  const name = segments[segments.length - 1]!;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? name.slice(dot) : '';
  // In any letter case (`Brain Methods.CSV`): the file is plainly that type, and keeps its name.
  if (!(ASSET_EXTENSIONS as readonly string[]).includes(extension.toLowerCase())) {
    return invalid(
      extension === '' ? 'The asset file has no extension.' : `Asset files cannot have the extension "${extension}".`,
      `Allowed extensions: ${ASSET_EXTENSIONS.join(' ')} (assets are text files).`,
    );
  }
  return { ok: true, path };
}

export function checkAssetSize(path: string, content: string): AssetCheck {
  const bytes = utf8ByteLength(content);
  if (bytes > MAX_ASSET_BYTES) {
    return {
      ok: false,
      code: 'ASSET_TOO_LARGE',
      message: `${path} is ${formatBytes(bytes)}; an asset may be at most ${formatBytes(MAX_ASSET_BYTES)}.`,
      hint: 'Split it into several smaller assets.',
    };
  }
  return { ok: true, path };
}

/** Project-wide limits: at most 200 assets and 2 MiB in total. */
export function checkAssetQuota(count: number, totalBytes: number): { ok: true } | Extract<AssetCheck, { ok: false }> {
  if (count > MAX_ASSET_COUNT) {
    return {
      ok: false,
      code: 'ASSET_LIMIT_REACHED',
      message: `The project would have ${count} assets; the limit is ${MAX_ASSET_COUNT}.`,
      hint: 'Delete assets you no longer need, or merge small ones.',
    };
  }
  if (totalBytes > MAX_ASSETS_TOTAL_BYTES) {
    return {
      ok: false,
      code: 'ASSET_LIMIT_REACHED',
      message: `The project's assets would total ${formatBytes(totalBytes)}; the limit is ${formatBytes(MAX_ASSETS_TOTAL_BYTES)}.`,
      hint: 'Delete or shorten assets you no longer need.',
    };
  }
  return { ok: true };
}

/**
 * Why `path` cannot sit beside `others` once the package is unpacked, or null. Two paths that differ
 * only in letter case are one file on Windows and macOS (one would overwrite the other), and a file
 * cannot share its name with a folder (`assets/a.md` beside `assets/a.md/b.md`) on any system.
 */
export function assetPathClash(path: string, others: Iterable<string>): Extract<AssetCheck, { ok: false }> | null {
  const folded = path.toLowerCase();
  for (const other of others) {
    if (other === path) continue;
    const otherFolded = other.toLowerCase();
    if (otherFolded === folded) {
      return { ok: false, code: 'ASSET_INVALID_PATH', message: `${path} differs from ${other} only in letter case: unpacked on Windows or macOS, one would overwrite the other.`, hint: 'Rename one of them.' };
    }
    const [file, inside] = folded.length < otherFolded.length ? [path, other] : [other, path];
    if (inside.toLowerCase().startsWith(`${file.toLowerCase()}/`)) {
      return { ok: false, code: 'ASSET_INVALID_PATH', message: `${inside} would be inside ${file}, which is a file: a file and a folder cannot share a name.`, hint: 'Rename the file or the folder.' };
    }
  }
  return null;
}

/**
 * Everything the asset API checks before writing `content` at `path`, given the sizes of the
 * project's current assets (an existing file at `path` is replaced, not added).
 */
export function checkAssetUpsert(
  path: string,
  content: string,
  current: ReadonlyArray<{ path: string; bytes: number }>,
): AssetCheck {
  const pathCheck = checkAssetPath(path);
  if (!pathCheck.ok) return pathCheck;
  const sizeCheck = checkAssetSize(path, content);
  if (!sizeCheck.ok) return sizeCheck;
  const others = current.filter((a) => a.path !== path);
  const clash = assetPathClash(path, others.map((a) => a.path));
  if (clash) return clash;
  const total = others.reduce((sum, a) => sum + a.bytes, 0) + utf8ByteLength(content);
  const quota = checkAssetQuota(others.length + 1, total);
  return quota.ok ? { ok: true, path } : quota;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(bytes % 1024 === 0 ? 0 : 1)} KiB`;
  return `${bytes} bytes`;
}
