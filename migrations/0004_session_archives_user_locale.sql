CREATE TABLE `ai_session_archives` (
	`session_id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`view_json` text NOT NULL,
	`timeline_json` text NOT NULL,
	`conversation_json` text NOT NULL,
	`final_diff_json` text NOT NULL,
	`released_at` text NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `ai_sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `users` ADD `locale` text;