/**
 * What a project is beyond its package, carried inside its `.bmad` so an export imports back as
 * the same project: the project's own name (bmad.json `name` is the package's name, often an ASCII
 * slug of it), its domain profile, its content language (when it is not the one an import would
 * detect), its settings (`settings`: ProjectSettings, e.g. `requiredApprovals`), and for a
 * BMAD-METHOD import where its files came from (the origin record, `bmadMethod`).
 *
 * On import a value that is not valid (a name of 300 characters, `requiredApprovals: 42`, a content
 * language the product does not speak, a setting it does not have) is ignored with a warning
 * (PROJECT_FILE_VALUE_IGNORED, naming the field): the project gets what an import without it gives,
 * and everything else is imported. The project is still written in one batch, so a refusal for any
 * other reason leaves nothing. An invalid origin record is the exception: it would guide the export
 * back, so it refuses the import (`bmadMethod`, below).
 *
 * bmad.json is closed in the v1.1 schema, so these travel in a file of their own under `assets/`,
 * which every other tool reads as a plain JSON asset; our import takes it out of the package and
 * applies it. A file at that path without our `format` marker is an author's asset and stays one.
 * Packages exported before the origin record moved here carry it in bmad.json (`takeManifestOrigin`).
 */
import * as z from 'zod';
import { DomainProfile, ProjectSettings } from '../api/projects.ts';
import { CONTENT_LANGUAGES, type ContentLanguage } from '../i18n/content-language.ts';
import { BmadMethodOriginRecord } from './models.ts';
import { MANIFEST_PATH } from './package.ts';
import { checkShape } from './parse-files.ts';
import { eolOf, jsonFileText, type Eol } from './json-text.ts';
import { warningIssue, type ValidationIssue } from './issues.ts';

export const PROJECT_FILE_PATH = 'assets/crewagent-project.json';
export const PROJECT_FILE_FORMAT = 'crewagent-project';

/** An origin record read from a file: the record, or the issues that keep it from being used. */
export type OriginRead = { ok: true; record: BmadMethodOriginRecord } | { ok: false; issues: ValidationIssue[] };

export interface ProjectFileInfo {
  /** The project's name as its owner gave it (any script). */
  name?: string;
  domainProfile?: DomainProfile;
  contentLanguage?: ContentLanguage;
  /** The project's settings the file gives (each valid one; the others keep their defaults). */
  settings?: Partial<ProjectSettings>;
  /** Where a BMAD-METHOD import's files came from, when the file has a record. */
  bmadMethod?: OriginRead;
  /** One PROJECT_FILE_VALUE_IGNORED warning per value that was not valid (present only when there is one). */
  warnings?: ValidationIssue[];
}

/** What the package says of its project without the file: bmad.json's name, and the content language an import detects. */
export interface PackageSays {
  name: string;
  contentLanguage?: ContentLanguage;
}

const Name = z.string().trim().min(1).max(100);
const Language = z.enum(CONTENT_LANGUAGES);
const SETTINGS_DEFAULTS = ProjectSettings.parse({});
const Marker = z.looseObject({ format: z.literal(PROJECT_FILE_FORMAT) });
/** The record under `bmadMethod` of a JSON object, so an issue points into the file (`/bmadMethod/workflows/0/dir`). */
const WithOrigin = z.looseObject({ bmadMethod: BmadMethodOriginRecord });

const isEmptyProfile = (profile: DomainProfile) => Object.values(profile).every((v) => v === '');

/**
 * The record of a file's `bmadMethod`: refused like a schema violation when it breaks the model's
 * rules (a path that would write outside the zip on the export back), never half taken.
 */
function readOrigin(value: Record<string, unknown>, filePath: string): OriginRead {
  const checked = checkShape(WithOrigin, value, filePath);
  return checked.ok ? { ok: true, record: checked.data.bmadMethod } : { ok: false, issues: checked.issues };
}

/** The settings that differ from the defaults, or undefined when none does. */
function changedSettings(settings: ProjectSettings | undefined): Partial<ProjectSettings> | undefined {
  if (!settings) return undefined;
  const changed = Object.fromEntries(Object.entries(settings).filter(([key, value]) => SETTINGS_DEFAULTS[key as keyof ProjectSettings] !== value));
  return Object.keys(changed).length > 0 ? changed : undefined;
}

/**
 * The file's text, or null when it would say nothing the package does not (`says`): the name is
 * the package's own `name`, the profile is empty, the content language is the one an import
 * detects, the settings are the defaults and there is no origin record (an unchanged import then
 * exports back byte for byte). An origin record the model refuses (one stored before its rules) is
 * left out, as bmad.json left it out before the record moved here.
 */
export function projectFileText(
  info: { name: string; domainProfile: DomainProfile; bmadMethod?: unknown; contentLanguage?: ContentLanguage; settings?: ProjectSettings },
  says: PackageSays,
  eol: Eol = '\n',
): string | null {
  const profile = isEmptyProfile(info.domainProfile) ? undefined : info.domainProfile;
  const origin = BmadMethodOriginRecord.safeParse(info.bmadMethod);
  const language = info.contentLanguage !== undefined && info.contentLanguage !== (says.contentLanguage ?? 'en') ? info.contentLanguage : undefined;
  const settings = changedSettings(info.settings);
  if (info.name === says.name && profile === undefined && !origin.success && language === undefined && settings === undefined) return null;
  return jsonFileText(
    {
      format: PROJECT_FILE_FORMAT,
      formatVersion: 1,
      name: info.name,
      ...(profile ? { domainProfile: profile } : {}),
      ...(language ? { contentLanguage: language } : {}),
      ...(settings ? { settings } : {}),
      ...(origin.success ? { bmadMethod: origin.data } : {}),
    },
    eol,
  );
}

/** The warning of a value the import ignored. */
function ignored(field: string, why: string): ValidationIssue {
  return warningIssue(
    'PROJECT_FILE_VALUE_IGNORED',
    PROJECT_FILE_PATH,
    `${field} in ${PROJECT_FILE_PATH} is not valid (${why}), so the import ignored it.`,
    {
      pointer: `/${field.split('.').join('/')}`,
      hint: 'The project gets what an import without this value gives; change it in the project after the import.',
      params: { field },
    },
  );
}

const firstMessage = (error: z.ZodError) => error.issues[0]?.message ?? 'not valid';

/** Each setting the file gives: the valid ones, and a warning for each other (unknown to this product, or out of its range). */
function readSettings(value: unknown, warnings: ValidationIssue[]): Partial<ProjectSettings> | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    warnings.push(ignored('settings', 'not an object'));
    return undefined;
  }
  const shape = ProjectSettings.shape as Record<string, z.ZodType>;
  const settings: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(value)) {
    const schema = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (!schema) {
      warnings.push(ignored(`settings.${key}`, 'not a setting of this product'));
      continue;
    }
    const read = schema.safeParse(setting);
    if (read.success) settings[key] = read.data;
    else warnings.push(ignored(`settings.${key}`, firstMessage(read.error)));
  }
  return Object.keys(settings).length > 0 ? (settings as Partial<ProjectSettings>) : undefined;
}

/** The file at `path` of an upload and its parsed JSON; null when there is none or it is not JSON. */
function jsonFileOf(files: Map<string, string>, path: string): { text: string; value: unknown } | null {
  const text = files.get(path);
  if (text === undefined) return null;
  try {
    return { text, value: JSON.parse(text) as unknown };
  } catch {
    return null;
  }
}

/**
 * Reads our project file out of an upload's files (paths from the package root) and removes it,
 * so it never becomes an asset. The name, profile, content language and each setting are taken
 * only when valid (one that is not falls back to what an import without the file does, with a
 * PROJECT_FILE_VALUE_IGNORED warning); an origin record is read with its issues.
 * Null when there is no such file, or the file at that path is not ours (it is then left in
 * place, an asset like any other).
 */
export function takeProjectFile(files: Map<string, string>): ProjectFileInfo | null {
  const file = jsonFileOf(files, PROJECT_FILE_PATH);
  if (!file) return null;
  const marked = Marker.safeParse(file.value);
  if (!marked.success) return null;
  files.delete(PROJECT_FILE_PATH);
  const info: ProjectFileInfo = {};
  const warnings: ValidationIssue[] = [];
  const { name, domainProfile, contentLanguage } = marked.data;
  const read = <T>(field: string, schema: z.ZodType<T>, value: unknown, take: (value: T) => void) => {
    if (value === undefined) return;
    const parsed = schema.safeParse(value);
    if (parsed.success) take(parsed.data);
    else warnings.push(ignored(field, firstMessage(parsed.error)));
  };
  read('name', Name, name, (v) => (info.name = v));
  read('domainProfile', DomainProfile, domainProfile, (v) => (info.domainProfile = v));
  read('contentLanguage', Language, contentLanguage, (v) => (info.contentLanguage = v));
  const settings = readSettings(marked.data.settings, warnings);
  if (settings) info.settings = settings;
  if (marked.data.bmadMethod !== undefined) info.bmadMethod = readOrigin(marked.data, PROJECT_FILE_PATH);
  if (warnings.length > 0) info.warnings = warnings;
  return info;
}

/**
 * The origin record of a `.bmad` exported before it moved to the project file: `bmadMethod` in
 * bmad.json. Taken out of bmad.json (rewritten in its own line ending), so the manifest is checked
 * against the closed v1.1 top level and the package imports as it did. Null, and bmad.json left as
 * it is, when bmad.json has no such field (or is not a JSON object: validation says so).
 */
export function takeManifestOrigin(files: Map<string, string>): OriginRead | null {
  const file = jsonFileOf(files, MANIFEST_PATH);
  if (!file) return null;
  const { text, value } = file;
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, 'bmadMethod')) return null;
  const { bmadMethod: _origin, ...manifest } = value as Record<string, unknown>;
  files.set(MANIFEST_PATH, jsonFileText(manifest, eolOf(text)));
  return readOrigin(value as Record<string, unknown>, MANIFEST_PATH);
}
