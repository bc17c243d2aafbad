/**
 * The D1 data model, designed once for the whole product.
 * drizzle-kit generates the SQL in migrations/ from this file; never edit those by hand.
 * Times are ISO-8601 strings; ids are prefixed random strings minted by shared/ids.ts.
 */
import { sql } from 'drizzle-orm';
import { foreignKey, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const createdAt = () => text('created_at').notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`);
const updatedAt = () => text('updated_at').notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`);

export const users = sqliteTable('users', {
  id: text('id').primaryKey(),
  email: text('email').notNull().unique(),
  name: text('name').notNull(),
  /** PBKDF2-SHA256; salt and iteration count stored beside the hash so they can change. */
  passwordHash: text('password_hash').notNull(),
  passwordSalt: text('password_salt').notNull(),
  passwordIterations: integer('password_iterations').notNull(),
  /** The interface language the person chose ('en' | 'zh'); null until they choose one. */
  locale: text('locale'),
  createdAt: createdAt(),
});

export const authSessions = sqliteTable(
  'auth_sessions',
  {
    /** SHA-256 of the cookie token: a leaked table does not sign anyone in. */
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: text('expires_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('auth_sessions_user_idx').on(t.userId)],
);

/**
 * Attempt counters for sign-in and registration, one row per key ("login:acct:<email>",
 * "login:ip:<address>", "register:ip:<address>"); see worker/auth/throttle.ts. Times here are
 * epoch milliseconds, not ISO strings, because the one upsert that counts an attempt computes
 * the next allowed time in SQL (a shift for the exponential delay).
 */
export const authThrottle = sqliteTable('auth_throttle', {
  key: text('key').primaryKey(),
  attempts: integer('attempts').notNull(),
  lastAttemptAt: integer('last_attempt_at').notNull(),
  nextAllowedAt: integer('next_allowed_at').notNull(),
});

export const projects = sqliteTable('projects', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  version: text('version').notNull().default('1.0.0'),
  domainProfileJson: text('domain_profile_json').notNull().default('{}'),
  /**
   * bmad.json as imported, so an export keeps what the project does not model itself
   * (package name, author, createdAt, workflow descriptions and tags). Null for projects made here.
   */
  manifestJson: text('manifest_json'),
  /** The package's agents.json, kept as text so nothing the author wrote is lost. */
  agentsJson: text('agents_json').notNull(),
  agentsRevision: integer('agents_revision').notNull().default(1),
  assetsRevision: integer('assets_revision').notNull().default(1),
  /**
   * The language the package's own text is written in ('en' | 'zh', one of shared/i18n/locales.ts):
   * detected on import (shared/i18n/content-language.ts), editable in Settings; the AI writes
   * staged content in it. Projects made before it existed read 'en'.
   */
  contentLanguage: text('content_language').notNull().default('en'),
  /** Project rules, e.g. `{"requiredApprovals": 1}`. */
  settingsJson: text('settings_json').notNull().default('{}'),
  createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const projectMembers = sqliteTable(
  'project_members',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['owner', 'editor', 'viewer'] }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.userId] }), index('project_members_user_idx').on(t.userId)],
);

/**
 * A pending invitation to a project, by the email the owner typed (worker/store/invitations.ts). The
 * row is the same whether or not an account uses the email, so inviting tells the owner nothing of
 * who has one. Only the account with this email accepts it, before `expires_at`: one batch deletes
 * the row and adds the member. One per project and email; inviting again renews it.
 */
export const projectInvitations = sqliteTable(
  'project_invitations',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** Lower case (shared/api/auth.ts `Email`), as account emails are stored. */
    email: text('email').notNull(),
    role: text('role', { enum: ['owner', 'editor', 'viewer'] }).notNull(),
    invitedBy: text('invited_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    expiresAt: text('expires_at').notNull(),
  },
  (t) => [uniqueIndex('project_invitations_project_email_idx').on(t.projectId, t.email), index('project_invitations_email_idx').on(t.email)],
);

export const workflows = sqliteTable(
  'workflows',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** The package id (bmad.json `workflows[].id`), the id people and the AI see. */
    id: text('id').notNull(),
    name: text('name').notNull(),
    isDefault: integer('is_default', { mode: 'boolean' }).notNull().default(false),
    workflowMd: text('workflow_md').notNull(),
    graphJson: text('graph_json').notNull(),
    /** Covers workflow.md, the graph and every step file of the workflow. */
    revision: integer('revision').notNull().default(1),
    /**
     * The workflow's place in the project (bmad.json `workflows[]` order): an import writes the
     * manifest's order, a new workflow goes after the last (worker/store/workflow-order.ts). Read
     * back by position, then created_at and id. A one-batch import can give every row the same
     * created_at, so without it the order fell back to the ids' alphabetical order.
     */
    position: integer('position').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.id] })],
);

export const workflowSteps = sqliteTable(
  'workflow_steps',
  {
    projectId: text('project_id').notNull(),
    workflowId: text('workflow_id').notNull(),
    nodeId: text('node_id').notNull(),
    /** Path inside the package (relative to the zip root). */
    path: text('path').notNull(),
    markdown: text('markdown').notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.workflowId, t.nodeId] }),
    uniqueIndex('workflow_steps_path_idx').on(t.projectId, t.path),
    foreignKey({ columns: [t.projectId, t.workflowId], foreignColumns: [workflows.projectId, workflows.id] }).onDelete(
      'cascade',
    ),
  ],
);

export const assets = sqliteTable(
  'assets',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    content: text('content').notNull(),
    sha256: text('sha256').notNull(),
    bytes: integer('bytes').notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.path] })],
);

/**
 * One row per write to the package, manual or AI. `new_revision` is NOT NULL on purpose: a
 * write's history row computes it from the current revision *and the expected one*, so when
 * another write got in first the insert fails and the whole D1 batch rolls back.
 */
export const revisionHistory = sqliteTable(
  'revision_history',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** `workflow:<wid>`, `graph:<wid>`, `step:<wid>/<nodeId>`, `agent:<id>`, `asset:<path>`, `project`. */
    objectKey: text('object_key').notNull(),
    action: text('action').notNull(),
    oldRevision: integer('old_revision').notNull(),
    newRevision: integer('new_revision').notNull(),
    contentBefore: text('content_before'),
    contentAfter: text('content_after'),
    /** Extra facts needed to restore the object, e.g. a step file's path. */
    metaJson: text('meta_json'),
    /** Rows written by one write (one D1 batch) share this id, so a revert can restore them together. */
    writeId: text('write_id').notNull(),
    actorId: text('actor_id').references(() => users.id, { onDelete: 'set null' }),
    sessionId: text('session_id'),
    changeSetId: text('change_set_id'),
    createdAt: createdAt(),
  },
  (t) => [
    index('revision_history_project_idx').on(t.projectId, t.createdAt),
    index('revision_history_object_idx').on(t.projectId, t.objectKey, t.createdAt),
    index('revision_history_write_idx').on(t.writeId),
  ],
);

export const userLlmProfiles = sqliteTable('user_llm_profiles', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  provider: text('provider').notNull().default('disabled'),
  /** A UI preset label (openai, deepseek, openrouter, local, custom, scripted-demo). */
  preset: text('preset'),
  baseUrl: text('base_url'),
  model: text('model'),
  /** AES-256-GCM ciphertext (base64) with the user id as additional data. */
  apiKeyCiphertext: text('api_key_ciphertext'),
  apiKeyNonce: text('api_key_nonce'),
  apiKeyVersion: integer('api_key_version'),
  apiKeyLast4: text('api_key_last4'),
  timeoutSeconds: integer('timeout_seconds').notNull().default(60),
  contextWindow: integer('context_window'),
  healthStatus: text('health_status', { enum: ['unknown', 'ok', 'failed'] }).notNull().default('unknown'),
  lastTestedAt: text('last_tested_at'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const aiSessions = sqliteTable(
  'ai_sessions',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    workflowId: text('workflow_id'),
    userId: text('user_id').references(() => users.id, { onDelete: 'set null' }),
    targetType: text('target_type', { enum: ['workflow', 'step', 'agent', 'asset'] }).notNull(),
    targetId: text('target_id'),
    mode: text('mode', { enum: ['create', 'optimize'] }).notNull(),
    status: text('status', { enum: ['active', 'cancelled', 'failed'] }).notNull().default('active'),
    contextEnvelopeJson: text('context_envelope_json'),
    latestSuggestionJson: text('latest_suggestion_json'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('ai_sessions_project_idx').on(t.projectId, t.createdAt)],
);

export const aiChangeSets = sqliteTable(
  'ai_change_sets',
  {
    id: text('id').primaryKey(),
    sessionId: text('session_id')
      .notNull()
      .references(() => aiSessions.id, { onDelete: 'cascade' }),
    projectId: text('project_id').notNull(),
    suggestionVersion: integer('suggestion_version').notNull(),
    changeSetJson: text('change_set_json').notNull(),
    contentHash: text('content_hash').notNull(),
    validationResultJson: text('validation_result_json'),
    status: text('status', { enum: ['staged', 'validated', 'applied', 'rejected'] }).notNull(),
    createdBy: text('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('ai_change_sets_version_idx').on(t.sessionId, t.suggestionVersion)],
);

/**
 * What stays of an ended AI session once its object's storage is released after the retention
 * period (durable-objects/ai-session/retention.ts): the read-only view as it last was, its timeline
 * summary, the conversation's summaries and the final diff, as JSON.
 */
export const aiSessionArchives = sqliteTable('ai_session_archives', {
  sessionId: text('session_id')
    .primaryKey()
    .references(() => aiSessions.id, { onDelete: 'cascade' }),
  projectId: text('project_id').notNull(),
  viewJson: text('view_json').notNull(),
  timelineJson: text('timeline_json').notNull(),
  conversationJson: text('conversation_json').notNull(),
  finalDiffJson: text('final_diff_json').notNull(),
  releasedAt: text('released_at').notNull(),
});

export const aiAuditEvents = sqliteTable(
  'ai_audit_events',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    sessionId: text('session_id'),
    userId: text('user_id'),
    eventType: text('event_type').notNull(),
    code: text('code'),
    latencyMs: integer('latency_ms'),
    /** Redacted before it is written (no keys, no bearer tokens). */
    payloadJson: text('payload_json').notNull().default('{}'),
    createdAt: createdAt(),
  },
  (t) => [
    index('ai_audit_events_project_idx').on(t.projectId, t.createdAt),
    index('ai_audit_events_type_idx').on(t.projectId, t.eventType),
  ],
);

/**
 * "Someone @mentioned you in a comment": one row per recipient and comment, written by the session
 * object when the comment is posted; `excerpt` is plain text (markdown and HTML removed).
 */
export const mentions = sqliteTable(
  'mentions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    sessionId: text('session_id').notNull(),
    threadId: text('thread_id').notNull(),
    commentId: text('comment_id').notNull(),
    authorId: text('author_id').references(() => users.id, { onDelete: 'set null' }),
    authorName: text('author_name').notNull(),
    objectKey: text('object_key'),
    line: integer('line'),
    excerpt: text('excerpt').notNull(),
    createdAt: createdAt(),
    readAt: text('read_at'),
  },
  (t) => [index('mentions_user_idx').on(t.userId, t.readAt, t.createdAt), uniqueIndex('mentions_comment_user_idx').on(t.commentId, t.userId)],
);
