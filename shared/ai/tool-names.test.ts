/** How a model's spelling of a tool name is read (tool-names.ts matchToolName). */
import { describe, expect, it } from 'vitest';
import { FORBIDDEN_TOOL_NAMES, MODEL_TOOL_NAMES, matchToolName } from './tool-names.ts';

const KNOWN = [...MODEL_TOOL_NAMES, ...FORBIDDEN_TOOL_NAMES];

describe('matchToolName', () => {
  it.each([
    ['builder_step_read', 'builder.step.read'],
    ['builder.step.read', 'builder.step.read'],
    ['functions.builder_step_read', 'builder.step.read'],
    ['functions:builder_change_stage', 'builder.change.stage'],
    ['function.builder_change_validate', 'builder.change.validate'],
    ['tools/builder_asset_read', 'builder.asset.read'],
    ['Builder_Refs_Find', 'builder.refs.find'],
    ['  builder-context-get\n', 'builder.context.get'],
    ['builder_change_apply', 'builder.change.apply'],
    ['functions.builder.change.apply', 'builder.change.apply'],
  ])('reads %j as %s', (spelled, name) => {
    expect(matchToolName(spelled, KNOWN)).toBe(name);
  });

  it.each(['builder_step', 'step_read', 'builder_step_read_all', 'functions.', '', 'xfunctions.builder_step_read', 'builder__step_read', 'builderstepread'])(
    'leaves %j unknown',
    (spelled) => {
      expect(matchToolName(spelled, KNOWN)).toBeNull();
    },
  );
});
