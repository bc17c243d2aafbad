// The slice of madge's JavaScript API (lib/api.js) that scripts/check-boundaries.ts uses; madge ships no types.
declare module 'madge' {
  interface MadgeConfig {
    baseDir?: string;
    fileExtensions?: string[];
    tsConfig?: string;
    excludeRegExp?: RegExp[];
  }
  interface MadgeResult {
    /** File → the files it imports, paths relative to baseDir. */
    obj(): Record<string, string[]>;
    circular(): string[][];
    warnings(): { skipped: string[] };
  }
  export default function madge(path: string | string[], config?: MadgeConfig): Promise<MadgeResult>;
}
