CREATE TABLE IF NOT EXISTS "fake_caches" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL REFERENCES "projects"("id") ON DELETE CASCADE,
	"name" text NOT NULL,
	"physical_name" text NOT NULL,
	"max_memory_mb" integer NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "fake_caches_project_name_uq" ON "fake_caches" ("project_id", "name") WHERE "deleted_at" IS NULL;
