DROP TABLE "auth_signing_keys" CASCADE;--> statement-breakpoint
ALTER TABLE "auth_apps" ADD COLUMN "signing_keys" jsonb DEFAULT '[]'::jsonb NOT NULL;