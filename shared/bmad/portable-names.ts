/**
 * File names that unpack everywhere. Ids may contain ":" (the spec's id pattern), and a step file or
 * workflow folder named after such an id has a name Windows cannot create; so do names with
 * * ? " < > | or a control character, names ending in a dot or a space, and the device names CON,
 * PRN, AUX, NUL, COM1–COM9 and LPT1–LPT9 (with any extension: `nul.md` too). The spec lets a step's
 * file name differ from its node id (the graph's `node.file` says which file) and bmad.json names
 * each workflow's files, so the .bmad export writes such names in a portable form
 * (package-files.ts) and validation says so (security-rules.ts). A step made in the product (the
 * Builder's step save, a step the AI stages) gets a portable file name from the start
 * (newStepFilePath); its id stays as it is.
 */

const FORBIDDEN = /[<>:"|?*\p{Cc}]/gu;
const DEVICE = /^(?:con|prn|aux|nul|com[1-9]|lpt[1-9])(?=\.|$)/iu;

/** Why Windows cannot create a file or folder of this name, or undefined when it can. */
export function windowsNameProblem(segment: string): string | undefined {
  const found = [...new Set(segment.match(FORBIDDEN) ?? [])];
  if (found.length > 0) return `it contains ${found.map((c) => (/\p{Cc}/u.test(c) ? 'a control character' : `"${c}"`)).join(' and ')}`;
  if (segment.endsWith('.')) return 'it ends with a dot';
  if (segment.endsWith(' ')) return 'it ends with a space';
  const device = DEVICE.exec(segment)?.[0];
  if (device) return `${device.toUpperCase()} is a device name there`;
  return undefined;
}

/** The first part of `path` (segments split on `/`) Windows cannot create, with the reason. */
export function pathProblem(path: string): { segment: string; reason: string } | undefined {
  for (const segment of path.split('/')) {
    const reason = windowsNameProblem(segment);
    if (reason) return { segment, reason };
  }
  return undefined;
}

/** `review:final.md` → `review_final.md`, `nul.md` → `nul_.md`, `notes.` → `notes_`; a portable name is kept as it is. */
export function portableSegment(segment: string): string {
  if (windowsNameProblem(segment) === undefined) return segment;
  const out = segment.replace(FORBIDDEN, '_').replace(/[. ]+$/u, (tail) => '_'.repeat(tail.length));
  return DEVICE.test(out) ? out.replace(DEVICE, (name) => `${name}_`) : out;
}

export function portablePath(path: string): string {
  return path.split('/').map(portableSegment).join('/');
}

/** `steps/a.md` with n = 2 → `steps/a-2.md` (a name without an extension gets `-2` at its end). */
export function numberedPath(path: string, n: number): string {
  const dot = path.lastIndexOf('.');
  return dot > path.lastIndexOf('/') ? `${path.slice(0, dot)}-${n}${path.slice(dot)}` : `${path}-${n}`;
}

/**
 * The file of a new step in `stepsDir` when nothing names one: `<id>.md` in a portable form
 * (`review:final` → `review_final.md`, `nul` → `nul_.md`), so the id stays and the graph's
 * `node.file` names this file; `-2`, `-3`… while `taken` says the path is another step's.
 */
export function newStepFilePath(stepsDir: string, nodeId: string, taken: (path: string) => boolean = () => false): string {
  const first = `${stepsDir}/${portableSegment(`${nodeId}.md`)}`;
  let path = first;
  for (let n = 2; taken(path); n++) path = numberedPath(first, n);
  return path;
}
