CREATE TABLE `auth_throttle` (
	`key` text PRIMARY KEY NOT NULL,
	`attempts` integer NOT NULL,
	`last_attempt_at` integer NOT NULL,
	`next_allowed_at` integer NOT NULL
);
--> statement-breakpoint
DROP TABLE `login_throttle`;