CREATE TABLE `ai_audit_events` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`session_id` text,
	`user_id` text,
	`event_type` text NOT NULL,
	`code` text,
	`latency_ms` integer,
	`payload_json` text DEFAULT '{}' NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `ai_audit_events_project_idx` ON `ai_audit_events` (`project_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `ai_audit_events_type_idx` ON `ai_audit_events` (`project_id`,`event_type`);--> statement-breakpoint
CREATE TABLE `ai_change_sets` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`project_id` text NOT NULL,
	`suggestion_version` integer NOT NULL,
	`change_set_json` text NOT NULL,
	`content_hash` text NOT NULL,
	`validation_result_json` text,
	`status` text NOT NULL,
	`created_by` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `ai_sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ai_change_sets_version_idx` ON `ai_change_sets` (`session_id`,`suggestion_version`);--> statement-breakpoint
CREATE TABLE `ai_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`workflow_id` text,
	`user_id` text,
	`target_type` text NOT NULL,
	`target_id` text,
	`mode` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`context_envelope_json` text,
	`latest_suggestion_json` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `ai_sessions_project_idx` ON `ai_sessions` (`project_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `assets` (
	`project_id` text NOT NULL,
	`path` text NOT NULL,
	`content` text NOT NULL,
	`sha256` text NOT NULL,
	`bytes` integer NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	PRIMARY KEY(`project_id`, `path`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `auth_sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`expires_at` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `auth_sessions_user_idx` ON `auth_sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `login_throttle` (
	`key` text PRIMARY KEY NOT NULL,
	`failures` integer NOT NULL,
	`window_started_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `project_members` (
	`project_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	PRIMARY KEY(`project_id`, `user_id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `project_members_user_idx` ON `project_members` (`user_id`);--> statement-breakpoint
CREATE TABLE `projects` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`version` text DEFAULT '1.0.0' NOT NULL,
	`domain_profile_json` text DEFAULT '{}' NOT NULL,
	`agents_json` text NOT NULL,
	`agents_revision` integer DEFAULT 1 NOT NULL,
	`assets_revision` integer DEFAULT 1 NOT NULL,
	`settings_json` text DEFAULT '{}' NOT NULL,
	`created_by` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE TABLE `revision_history` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`object_key` text NOT NULL,
	`action` text NOT NULL,
	`old_revision` integer NOT NULL,
	`new_revision` integer NOT NULL,
	`content_before` text,
	`content_after` text,
	`meta_json` text,
	`write_id` text NOT NULL,
	`actor_id` text,
	`session_id` text,
	`change_set_id` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`actor_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `revision_history_project_idx` ON `revision_history` (`project_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `revision_history_object_idx` ON `revision_history` (`project_id`,`object_key`,`created_at`);--> statement-breakpoint
CREATE INDEX `revision_history_write_idx` ON `revision_history` (`write_id`);--> statement-breakpoint
CREATE TABLE `user_llm_profiles` (
	`user_id` text PRIMARY KEY NOT NULL,
	`provider` text DEFAULT 'disabled' NOT NULL,
	`preset` text,
	`base_url` text,
	`model` text,
	`api_key_ciphertext` text,
	`api_key_nonce` text,
	`api_key_version` integer,
	`api_key_last4` text,
	`timeout_seconds` integer DEFAULT 60 NOT NULL,
	`context_window` integer,
	`health_status` text DEFAULT 'unknown' NOT NULL,
	`last_tested_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`password_hash` text NOT NULL,
	`password_salt` text NOT NULL,
	`password_iterations` integer NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE TABLE `workflow_steps` (
	`project_id` text NOT NULL,
	`workflow_id` text NOT NULL,
	`node_id` text NOT NULL,
	`path` text NOT NULL,
	`markdown` text NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	PRIMARY KEY(`project_id`, `workflow_id`, `node_id`),
	FOREIGN KEY (`project_id`,`workflow_id`) REFERENCES `workflows`(`project_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workflow_steps_path_idx` ON `workflow_steps` (`project_id`,`path`);--> statement-breakpoint
CREATE TABLE `workflows` (
	`project_id` text NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`workflow_md` text NOT NULL,
	`graph_json` text NOT NULL,
	`revision` integer DEFAULT 1 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	PRIMARY KEY(`project_id`, `id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
