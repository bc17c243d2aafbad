/**
 * What a project is beyond its package, carried inside its `.bmad` so an export imports back as
 * the same project: the project's own name (bmad.json `name` is the package's name, often an ASCII
 * slug of it) and its domain profile. bmad.json is closed in the v1.1 schema, so these travel in a
 * file of their own under `assets/`, which every other tool reads as a plain JSON asset; our
 * import takes it out of the package and applies it. A file at that path without our `format`
 * marker is an author's asset and stays one.
 */
import * as z from 'zod';
import { DomainProfile } from '../api/projects.ts';
import { jsonFileText, type Eol } from './json-text.ts';

export const PROJECT_FILE_PATH = 'assets/crewagent-project.json';
export const PROJECT_FILE_FORMAT = 'crewagent-project';

export interface ProjectFileInfo {
  /** The project's name as its owner gave it (any script). */
  name?: string;
  domainProfile?: DomainProfile;
}

const Name = z.string().trim().min(1).max(100);
const Marker = z.looseObject({ format: z.literal(PROJECT_FILE_FORMAT) });

const isEmptyProfile = (profile: DomainProfile) => Object.values(profile).every((v) => v === '');

/**
 * The file's text, or null when it would say nothing bmad.json does not: the name is the package's
 * own `name` and the profile is empty (an unchanged import then exports back byte for byte).
 */
export function projectFileText(info: { name: string; domainProfile: DomainProfile }, manifestName: string, eol: Eol = '\n'): string | null {
  const profile = isEmptyProfile(info.domainProfile) ? undefined : info.domainProfile;
  if (info.name === manifestName && profile === undefined) return null;
  return jsonFileText({ format: PROJECT_FILE_FORMAT, formatVersion: 1, name: info.name, ...(profile ? { domainProfile: profile } : {}) }, eol);
}

/**
 * Reads our project file out of an upload's files (paths from the package root) and removes it,
 * so it never becomes an asset. Each field is taken only when valid; a field that is not falls
 * back to what an import without the file does. Null when there is no such file, or the file at
 * that path is not ours (it is then left in place, an asset like any other).
 */
export function takeProjectFile(files: Map<string, string>): ProjectFileInfo | null {
  const text = files.get(PROJECT_FILE_PATH);
  if (text === undefined) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const marked = Marker.safeParse(value);
  if (!marked.success) return null;
  files.delete(PROJECT_FILE_PATH);
  const info: ProjectFileInfo = {};
  const name = Name.safeParse(marked.data.name);
  if (name.success) info.name = name.data;
  const profile = DomainProfile.safeParse(marked.data.domainProfile);
  if (profile.success) info.domainProfile = profile.data;
  return info;
}
