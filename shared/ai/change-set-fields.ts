/**
 * The field schemas of the changeSet contract (ids, payload texts with their size cap, asset
 * paths, object keys, reasons, extensions, revisions), shared by the current shape
 * (change-set.ts) and the original product's older one (change-set-legacy.ts), so both check alike.
 */
import * as z from 'zod';
import { checkAssetPath, formatBytes } from '../bmad/asset-path.ts';
import { ID_PATTERN } from '../bmad/formats.ts';
import { utf8ByteLength } from '../bmad/limits.ts';
import { parseObjectKey } from '../object-keys.ts';
import { addViolation, CONTRACT } from './change-set-messages.ts';

export const CHANGE_SET_SCHEMA_VERSION = '1.0';
/** Operations in one change set. */
export const MAX_CHANGE_OPERATIONS = 200;
/** Any one payload text (a step, workflow.md, a graph, an asset, an agent as JSON), in UTF-8 bytes. */
export const MAX_PAYLOAD_TEXT_BYTES = 512 * 1024;

export function id(description: string) {
  return z.string().regex(ID_PATTERN).describe(description);
}

/** Size of `value` as JSON text, or undefined when it is not plain JSON data. */
function jsonBytes(value: unknown): number | undefined {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : utf8ByteLength(text);
  } catch {
    return undefined;
  }
}

function checkSize(bytes: number | undefined, ctx: z.RefinementCtx): void {
  if (bytes === undefined) {
    const hint = 'Use only objects, lists, strings, numbers, true/false and null.';
    addViolation(ctx, CONTRACT, 'The value is not plain JSON data.', hint);
  } else if (bytes > MAX_PAYLOAD_TEXT_BYTES) {
    addViolation(
      ctx,
      CONTRACT,
      `The text is ${formatBytes(bytes)}; one text may be at most ${formatBytes(MAX_PAYLOAD_TEXT_BYTES)}.`,
      'Make the text shorter, or split the change into several smaller operations.',
    );
  }
}

/** Adds a violation unless `value` is plain JSON data within the payload size limit. */
export function checkJson(value: unknown, ctx: z.RefinementCtx): void {
  checkSize(jsonBytes(value), ctx);
}

export function payloadText(description: string) {
  return z
    .string()
    .superRefine((text, ctx) => checkSize(utf8ByteLength(text), ctx))
    .describe(`${description} At most 512 KiB.`);
}

export function jsonObject(description: string) {
  return z
    .record(z.string(), z.unknown())
    .superRefine(checkJson)
    .describe(description);
}

export const AssetPath = z
  .string()
  .superRefine((path, ctx) => {
    const check = checkAssetPath(path);
    if (!check.ok) addViolation(ctx, check.code, check.message, check.hint);
  })
  .describe('Path of the asset: under assets/, only letters, digits and . _ - /, ending in .md .txt .json .yaml or .yml.');

export const ObjectKeyText = z
  .string()
  .superRefine((key, ctx) => {
    if (parseObjectKey(key) === undefined) {
      addViolation(
        ctx,
        CONTRACT,
        `"${key}" does not name a package object.`,
        'Write workflow:<workflowId>, graph:<workflowId>, step:<workflowId>/<nodeId>, agent:<agentId> or asset:<path>.',
      );
    }
  })
  .describe('An object key: workflow:<wid>, graph:<wid>, step:<wid>/<nodeId>, agent:<agentId> or asset:<path>.');

export const Extensions = z
  .record(z.string(), z.unknown())
  .optional()
  .describe('Free-form extra data for tools: the one place for fields outside this contract. Ignored by validation and apply.');

export const Reason = z.string().optional().describe('Why this change is made, in one sentence for the person reviewing it.');

export const Count = z.int().min(0);
export const Revision = z.int().min(0);

export const ChangeRevisions = z
  .strictObject({
    workflowRevision: Revision.optional(),
    agentsRevision: Revision.optional(),
    assetsRevision: Revision.optional(),
  })
  .describe('Revisions of the stored package the change was prepared against, as the read tools reported them.');
export type ChangeRevisions = z.infer<typeof ChangeRevisions>;
