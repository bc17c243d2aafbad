/**
 * What a project is beyond its package, carried inside its `.bmad` so an export imports back as
 * the same project: the project's own name (bmad.json `name` is the package's name, often an ASCII
 * slug of it), its domain profile, and for a BMAD-METHOD import where its files came from (the
 * origin record, `bmadMethod`). bmad.json is closed in the v1.1 schema, so these travel in a file
 * of their own under `assets/`, which every other tool reads as a plain JSON asset; our import
 * takes it out of the package and applies it. A file at that path without our `format` marker is
 * an author's asset and stays one. Packages exported before the origin record moved here carry it
 * in bmad.json (`takeManifestOrigin`).
 */
import * as z from 'zod';
import { DomainProfile } from '../api/projects.ts';
import { BmadMethodOriginRecord } from './models.ts';
import { MANIFEST_PATH } from './package.ts';
import { checkShape } from './parse-files.ts';
import { eolOf, jsonFileText, type Eol } from './json-text.ts';
import type { ValidationIssue } from './issues.ts';

export const PROJECT_FILE_PATH = 'assets/crewagent-project.json';
export const PROJECT_FILE_FORMAT = 'crewagent-project';

/** An origin record read from a file: the record, or the issues that keep it from being used. */
export type OriginRead = { ok: true; record: BmadMethodOriginRecord } | { ok: false; issues: ValidationIssue[] };

export interface ProjectFileInfo {
  /** The project's name as its owner gave it (any script). */
  name?: string;
  domainProfile?: DomainProfile;
  /** Where a BMAD-METHOD import's files came from, when the file has a record. */
  bmadMethod?: OriginRead;
}

const Name = z.string().trim().min(1).max(100);
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

/**
 * The file's text, or null when it would say nothing bmad.json does not: the name is the package's
 * own `name`, the profile is empty and there is no origin record (an unchanged import then exports
 * back byte for byte). An origin record the model refuses (one stored before its rules) is left
 * out, as bmad.json left it out before the record moved here.
 */
export function projectFileText(
  info: { name: string; domainProfile: DomainProfile; bmadMethod?: unknown },
  manifestName: string,
  eol: Eol = '\n',
): string | null {
  const profile = isEmptyProfile(info.domainProfile) ? undefined : info.domainProfile;
  const origin = BmadMethodOriginRecord.safeParse(info.bmadMethod);
  if (info.name === manifestName && profile === undefined && !origin.success) return null;
  return jsonFileText(
    {
      format: PROJECT_FILE_FORMAT,
      formatVersion: 1,
      name: info.name,
      ...(profile ? { domainProfile: profile } : {}),
      ...(origin.success ? { bmadMethod: origin.data } : {}),
    },
    eol,
  );
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
 * so it never becomes an asset. The name and profile are taken only when valid (one that is not
 * falls back to what an import without the file does); an origin record is read with its issues.
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
  const name = Name.safeParse(marked.data.name);
  if (name.success) info.name = name.data;
  const profile = DomainProfile.safeParse(marked.data.domainProfile);
  if (profile.success) info.domainProfile = profile.data;
  if (marked.data.bmadMethod !== undefined) info.bmadMethod = readOrigin(marked.data, PROJECT_FILE_PATH);
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
