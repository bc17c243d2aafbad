// Spec conformance: the .bmad validator in shared/bmad against the five published JSON Schemas,
// checked with ajv (draft 2020-12 + ajv-formats) on the examples and thousands of mutations.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/spec/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
  },
});
