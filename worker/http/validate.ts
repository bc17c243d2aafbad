/**
 * Parse request bodies and queries at the edge, once, with the zod contracts from shared/api.
 * Malformed JSON, a non-JSON content type, unknown fields on strict bodies and wrong types all
 * become a 4xx ApiError with one detail per problem; handlers only ever see parsed values.
 *
 * Queries go through @hono/zod-validator. A JSON body is read and parsed once here (issue 19: the
 * validator would parse the text a second time), after a guard that answers 415 / 413 / INVALID_JSON
 * (Hono's own validator reads a non-JSON body as `{}` and answers a bare 400 on malformed JSON); a
 * zod failure becomes VALIDATION_FAILED listing every issue, and the value reaches the handler
 * through Hono's `c.req.valid('json')` as before.
 */
import { zValidator } from '@hono/zod-validator';
import type { Context, MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import type { $ZodError } from 'zod/v4/core';
import { ApiError } from '../../shared/api-error.ts';
import type { ErrorDetail } from '../../shared/errors.ts';
import { MAX_JSON_DEPTH, jsonNestsDeeper } from '../../shared/json-depth.ts';

/** JSON bodies above this are refused before they are parsed (asset files cap at 512 KiB). */
export const MAX_JSON_BYTES = 1024 * 1024;

/** The media types Hono's validator parses as JSON (`application/json`, `application/*+json`). */
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * One detail per zod issue. Besides the English message, the issue's code (and its bounds or
 * format) go along, so an app reading another language words the problem from its own catalogue.
 */
export function zodDetails(error: $ZodError): ErrorDetail[] {
  return error.issues.map((issue) => {
    const detail: ErrorDetail = {
      path: issue.path.map(String).join('.') || '(body)',
      message: issue.code === 'unrecognized_keys' ? `Unknown field(s): ${issue.keys.join(', ')}` : issue.message,
      code: issue.code,
    };
    if (issue.code === 'too_small' || issue.code === 'too_big') {
      const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum;
      // Bounds of dates or bigints are not numbers a JSON body carries as they are.
      if (typeof bound === 'number' && Number.isFinite(bound)) detail[issue.code === 'too_small' ? 'minimum' : 'maximum'] = bound;
      detail.origin = issue.origin;
    }
    if (issue.code === 'invalid_format') detail.format = issue.format;
    return detail;
  });
}

function validationFailed(error: $ZodError): ApiError {
  const details = zodDetails(error);
  return new ApiError('VALIDATION_FAILED', {
    message: `Some fields are missing or have the wrong value: ${details.map((d) => `${d.path} (${d.message})`).join('; ')}.`,
    details,
  });
}

/** The validator's hook: a failed parse becomes the product's error, thrown to app.onError. */
function throwOnFailure(result: { success: true } | { success: false; error: $ZodError }): void {
  if (!result.success) throw validationFailed(result.error);
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationFailed(result.error);
  return result.data;
}

/** UTF-8 takes at most 3 bytes per UTF-16 code unit: a text this short needs no encoding to be measured. */
const SURELY_WITHIN = Math.floor(MAX_JSON_BYTES / 3);

/** Checks the body is JSON, within MAX_JSON_BYTES and well formed, and answers it parsed. */
async function readJsonBody(c: Context): Promise<unknown> {
  const mediaType = (c.req.header('content-type') ?? '').split(';')[0]!.trim();
  if (!JSON_MEDIA_TYPE.test(mediaType)) {
    throw new ApiError('BAD_REQUEST', {
      message: 'Send the request body as JSON.',
      hints: ['Set the header Content-Type: application/json.'],
      status: 415,
    });
  }
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > MAX_JSON_BYTES) throw new ApiError('PAYLOAD_TOO_LARGE');
  const text = await c.req.text();
  if (text.length > SURELY_WITHIN && new TextEncoder().encode(text).byteLength > MAX_JSON_BYTES) throw new ApiError('PAYLOAD_TOO_LARGE');
  // What reads the value after the parse (the clone to the session object, the validators) recurses.
  if (jsonNestsDeeper(text)) {
    throw new ApiError('VALIDATION_FAILED', {
      message: `The body nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep.`,
      hints: ['Send a flatter value: no real package or change set nests this deep.'],
      details: [{ path: '(body)', message: `nested more than ${MAX_JSON_DEPTH} levels`, code: 'too_deep' }],
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError('INVALID_JSON', { hints: ['Check for a missing quote, comma or bracket.'] });
  }
}

type JsonBodyMiddleware<S extends z.ZodType> = MiddlewareHandler<any, string, { in: { json: z.input<S> }; out: { json: z.output<S> } }>;

/** `jsonBody(CreateProjectInput)`; the handler reads `c.req.valid('json')`. */
export function jsonBody<S extends z.ZodType>(schema: S): JsonBodyMiddleware<S> {
  return async function jsonBodyValidator(c, next) {
    c.req.addValidatedData('json', parseWith(schema, await readJsonBody(c)) as object);
    await next();
  };
}

/**
 * The body parsed by `schema`, or undefined when it is not a valid one (whatever the reason): for a
 * route's early path that must not answer before the caller is known; the usual path, after the
 * caller's check, reads the same body again (Hono keeps its text) and answers the problem.
 */
export async function tryJsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S> | undefined> {
  try {
    const parsed = schema.safeParse(await readJsonBody(c));
    return parsed.success ? parsed.data : undefined;
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
}

/** Optional JSON body: an empty body counts as `{}`. */
export function optionalJsonBody<S extends z.ZodType>(schema: S): JsonBodyMiddleware<S> {
  return async function optionalJsonBodyValidator(c, next) {
    const hasBody = Number(c.req.header('content-length') ?? '0') > 0 || c.req.header('transfer-encoding');
    c.req.addValidatedData('json', parseWith(schema, hasBody ? await readJsonBody(c) : {}) as object);
    await next();
  };
}

/** `queryWith(ListInput)`; a key given twice arrives as an array, which a string field refuses. */
export function queryWith<S extends z.ZodType>(
  schema: S,
): MiddlewareHandler<any, string, { in: { query: Record<string, string> }; out: { query: z.output<S> } }> {
  return zValidator('query', schema, throwOnFailure) as MiddlewareHandler;
}
