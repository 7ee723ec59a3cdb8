-- The scope and sign-in time a session was granted at the standard authorize endpoint (docs/contract.md §15):
-- a rotated refresh token carries them on, so a refresh answers the same scope and an ID token keeps auth_time.
ALTER TABLE "auth_refresh_tokens" ADD COLUMN "scope" text;
--> statement-breakpoint
ALTER TABLE "auth_refresh_tokens" ADD COLUMN "auth_time" timestamp with time zone;
