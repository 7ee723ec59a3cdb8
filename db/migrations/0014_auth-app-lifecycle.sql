-- An auth app's server key is found by its hash (it signs in as a caller of that app's end-user
-- admin routes and its token introspection), and each PATCH is a guarded write on settings_version.
ALTER TABLE "auth_apps" ADD COLUMN "server_key_hash" text;--> statement-breakpoint
ALTER TABLE "auth_apps" ADD COLUMN "settings_version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "auth_apps_server_key_hash_uq" ON "auth_apps" ("server_key_hash");
