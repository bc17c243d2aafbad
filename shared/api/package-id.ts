/**
 * The rule for ids that appear in a `.bmad` package, without zod: `common.ts` builds the
 * `PackageId` schema from it, and a page that must not load classic zod (the Workbench's address
 * check) builds its own with `zod/mini` from the same rule.
 */
export const PACKAGE_ID_MAX_LENGTH = 128;
/** A letter or digit, then letters, digits, `._:-`. */
export const PACKAGE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
export const PACKAGE_ID_RULE = 'Use letters, digits and . _ : - (starting with a letter or digit).';
