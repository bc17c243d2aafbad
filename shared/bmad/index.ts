/**
 * The .bmad v1.1 package model and its one validation pipeline. Pure code: runs in the browser,
 * in Workers and in Node (no Node APIs, no eval). See README.md for the tour.
 */
export * from './models.ts';
export { ID_PATTERN, SCHEMA_VERSION_PATTERN, SEMVER_PATTERN, SHA256_PATTERN, isDateTime, isJsonInteger } from './formats.ts';
export * from './limits.ts';
export { ISSUE_CODES, buildReport, errorIssue, warningIssue, toErrorDetail } from './issues.ts';
export type { IssueCode, IssueSeverity, ValidationIssue, ValidationReport } from './issues.ts';
export { parseFrontmatter, serializeFrontmatter } from './frontmatter.ts';
export type { FrontmatterOptions, FrontmatterProblem, FrontmatterProblemKind, FrontmatterResult, ParsedFrontmatter, SerializeOptions } from './frontmatter.ts';
export { eolOf, jsonFileText, parseJsonText } from './json-text.ts';
export type { Eol } from './json-text.ts';
export { toPointer } from './json-pointer.ts';
export { checkStepBody } from './step-body.ts';
export { checkGraph } from './graph-rules.ts';
export { stepsIndexLinks } from './steps-index.ts';
export type { StepsIndexLink } from './steps-index.ts';
export { assetRefsInText } from './asset-refs.ts';
export { checkAssetPath, checkAssetQuota, checkAssetSize, checkAssetUpsert, formatBytes } from './asset-path.ts';
export type { AssetCheck } from './asset-path.ts';
export { DEFAULT_AGENTS_PATH, MANIFEST_PATH, SINGLE_WORKFLOW_ID, packagePaths } from './package.ts';
export type { BmadAsset, BmadPackage, BmadStepFile, BmadWorkflow } from './package.ts';
export { deriveManifest, layoutMoves, manifestText, packageFromFiles, packageToFiles, packageToFilesWithSources, toMultiWorkflowLayout } from './package-files.ts';
export { PROJECT_FILE_FORMAT, PROJECT_FILE_PATH, projectFileText, takeManifestOrigin, takeProjectFile } from './project-file.ts';
export type { OriginRead, PackageSays, ProjectFileInfo } from './project-file.ts';
export { newStepFilePath } from './portable-names.ts';
export { checkShape, parseAgentsFile, parseGraphFile, parseManifestFile, parseStepFile, parseWorkflowMdFile } from './parse-files.ts';
export type { FileParse, MarkdownFile } from './parse-files.ts';
export { parsePackage } from './parse-package.ts';
export type { PackageParse, ParsedPackage, ParsedStep, ParsedWorkflow } from './parse-package.ts';
export type { StageContext, ValidationStage } from './stage.ts';
export { DEFAULT_STAGES, validatePackage } from './pipeline.ts';
export type { ValidateOptions } from './pipeline.ts';
export { GRAPH_LOAD_BREAKING_CODES, agentSaveRefusals, graphSaveRefusals, stepSaveRefusals, workflowMdSaveRefusals } from './save-rules.ts';
export { looseAgentIdIssues, looseGraphIdIssues } from './loose-rules.ts';
export { validateAgentsJson, validateGraph, validateManifest, validateStepFile, validateWorkflowMd } from './validate-file.ts';
export type { GraphFileOptions, StepFileOptions, WorkflowMdOptions } from './validate-file.ts';
