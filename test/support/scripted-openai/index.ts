// The scripted OpenAI-compatible server: tests start it in-process, `npm start` runs cli.ts.

export { startScriptedOpenAI, redactRecordedRequest } from './server.ts';
export type { ScriptedOpenAI, ScriptedOpenAIOptions } from './server.ts';
export { always, assistantTurns, demo, echo, messageText, MODEL_SCENARIOS, toolLoop } from './scenarios.ts';
export type { ToolLoopOptions } from './scenarios.ts';
export type {
  ChatMessage,
  FaultName,
  FaultReply,
  FinishReason,
  OfferedTool,
  RecordedRequest,
  Reply,
  Scenario,
  ScenarioRequest,
  ScriptedToolCall,
  ServerQuirks,
  TextReply,
  ToolCallsReply,
} from './types.ts';
