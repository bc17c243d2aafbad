/**
 * Parse request bodies and queries at the edge, once, with the zod contracts from shared/api.
 * Malformed JSON, a non-JSON content type, unknown fields on strict bodies and wrong types all
 * become a 4xx ApiError with one detail per problem; handlers only ever see parsed values.
 */
import type { MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import { ApiError } from '../../shared/api-error.ts';
import type { ErrorDetail } from '../../shared/errors.ts';

/** JSON bodies above this are refused before they are parsed (asset files cap at 512 KiB). */
export const MAX_JSON_BYTES = 1024 * 1024;

export function zodDetails(error: z.ZodError): ErrorDetail[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(body)',
    message: issue.code === 'unrecognized_keys' ? `Unknown field(s): ${issue.keys.join(', ')}` : issue.message,
  }));
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const details = zodDetails(result.error);
    throw new ApiError('VALIDATION_FAILED', {
      message: `Some fields are missing or have the wrong value: ${details.map((d) => `${d.path} (${d.message})`).join('; ')}.`,
      details,
    });
  }
  return result.data;
}

async function readJson(request: Request): Promise<unknown> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/([a-z0-9.+-]*\+)?json\b/i.test(type)) {
    throw new ApiError('BAD_REQUEST', {
      message: 'Send the request body as JSON.',
      hints: ['Set the header Content-Type: application/json.'],
      status: 415,
    });
  }
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > MAX_JSON_BYTES) throw new ApiError('PAYLOAD_TOO_LARGE');
  const text = await request.text();
  if (new TextEncoder().encode(text).byteLength > MAX_JSON_BYTES) throw new ApiError('PAYLOAD_TOO_LARGE');
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError('INVALID_JSON', { hints: ['Check for a missing quote, comma or bracket.'] });
  }
}

/** `jsonBody(CreateProjectInput)`; the handler reads `c.req.valid('json')`. */
export function jsonBody<S extends z.ZodType>(
  schema: S,
): MiddlewareHandler<any, string, { in: { json: z.input<S> }; out: { json: z.output<S> } }> {
  return async function jsonBodyValidator(c, next) {
    const value = parseWith(schema, await readJson(c.req.raw));
    c.req.addValidatedData('json', value as object);
    await next();
  };
}

/** Optional JSON body: an empty body counts as `{}`. */
export function optionalJsonBody<S extends z.ZodType>(
  schema: S,
): MiddlewareHandler<any, string, { in: { json: z.input<S> }; out: { json: z.output<S> } }> {
  return async function optionalJsonBodyValidator(c, next) {
    const hasBody = Number(c.req.header('content-length') ?? '0') > 0 || c.req.header('transfer-encoding');
    const raw = hasBody ? await readJson(c.req.raw) : {};
    c.req.addValidatedData('json', parseWith(schema, raw) as object);
    await next();
  };
}

export function queryWith<S extends z.ZodType>(
  schema: S,
): MiddlewareHandler<any, string, { in: { query: Record<string, string> }; out: { query: z.output<S> } }> {
  return async function queryValidator(c, next) {
    c.req.addValidatedData('query', parseWith(schema, c.req.query()) as object);
    await next();
  };
}
