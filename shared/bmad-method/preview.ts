/** The import preview the API answers (`POST /api/projects/import/preview`) and the app draws. */
import type { ContentLanguage } from '../i18n/content-language.ts';

export type ImportLayout = 'bmad' | 'bmad-method';

export interface ImportNote {
  code: string;
  path: string;
  message: string;
  hint?: string;
  /** The values, for the app's words of its code (shared/bmad/issues.ts). */
  params?: Record<string, string | number>;
}

export interface ImportPreview {
  layout: ImportLayout;
  /** No errors: confirming writes it all. */
  valid: boolean;
  /**
   * The name the new project will get: the one typed, else the project file's (a .bmad this product
   * exported), else bmad.json's; with " (2)", " (3)"… when the person already has a project by that
   * name (`nameTaken` is then that name). Absent when the package has no name to read (it is refused).
   */
  name?: string;
  nameTaken?: string;
  /** The language the package is written in (shared/i18n/content-language.ts), recorded with the project. */
  contentLanguage: ContentLanguage;
  workflows: Array<{ id: string; name: string; source?: string; graph: unknown; steps: Array<{ file: string; nodeId: string; source?: string }> }>;
  /** `renamedFrom`: the name in the upload, when it was outside the ASCII path characters (ascii-assets.ts). */
  assets: Array<{ path: string; source?: string; renamedFrom?: string }>;
  agents: Array<{ id: string; name: string; source?: string | null }>;
  warnings: ImportNote[];
  errors: ImportNote[];
}
