import { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { noToolsFlavour, rejectedOptionalParameter } from './provider-quirks.ts';

describe('provider quirks read from 4xx answers', () => {
  it('recognises "this model does not support tools" as real servers word it', () => {
    expect(noToolsFlavour('registry.ollama.ai/library/gemma:2b does not support tools')).toBe('ollama');
    expect(noToolsFlavour('"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set')).toBe('vllm');
    expect(noToolsFlavour('No endpoints found that support tool use. Try disabling "tools".')).toBe('generic');
    expect(noToolsFlavour('This model does not support function calling.')).toBe('generic');
    expect(noToolsFlavour('Invalid value for messages[2].content')).toBeNull();
  });

  it('names the optional parameter a 400 refused, and nothing for other errors', () => {
    const azure = new APIError(400, { message: 'Unrecognized request argument supplied: stream_options', type: 'invalid_request_error' }, undefined, new Headers());
    expect(rejectedOptionalParameter(azure, ['stream_options'])).toBe('stream_options');
    const other = new APIError(400, { message: 'messages: field required', type: 'invalid_request_error' }, undefined, new Headers());
    expect(rejectedOptionalParameter(other, ['stream_options'])).toBeNull();
    const server = new APIError(500, { message: 'Unrecognized request argument supplied: stream_options' }, undefined, new Headers());
    expect(rejectedOptionalParameter(server, ['stream_options'])).toBeNull();
  });
});
