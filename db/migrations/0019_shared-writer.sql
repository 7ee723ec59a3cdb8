ALTER TABLE "databases" ADD COLUMN "writer_user" text;--> statement-breakpoint
ALTER TABLE "databases" ADD COLUMN "writer_password_ciphertext" text;--> statement-breakpoint
ALTER TABLE "databases" ADD COLUMN "writer_handed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "databases" ADD COLUMN "main_exposed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "principals" ADD COLUMN "state" text DEFAULT 'active' NOT NULL;--> statement-breakpoint
-- Main passwords that may have reached an app: a database with an app on its shared credential
-- now (connected while stopped, or a site from before per-connection credentials), or one that
-- was ever stopped on record. The reconciler gives each a new main password once.
UPDATE "databases" d SET "main_exposed" = true
 WHERE d."deleted_at" IS NULL
   AND (d."status" = 'stopped'
     OR EXISTS (SELECT 1 FROM "connections" c WHERE c."kind" = 'database' AND c."resource_id" = d."id" AND c."credential_mode" = 'shared')
     OR EXISTS (SELECT 1 FROM "activity_events" e WHERE e."action" = 'database.stop' AND e."target_id" = d."id"::text));--> statement-breakpoint
CREATE INDEX "databases_main_exposed_idx" ON "databases" USING btree ("id") WHERE "databases"."main_exposed" = true;--> statement-breakpoint
CREATE INDEX "databases_reader_handed_idx" ON "databases" USING btree ("id") WHERE "databases"."reader_handed" = true;--> statement-breakpoint
CREATE INDEX "databases_writer_handed_idx" ON "databases" USING btree ("id") WHERE "databases"."writer_handed" = true;
