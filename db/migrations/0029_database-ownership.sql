ALTER TABLE "databases" ADD COLUMN "ownership_pending" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- PostgreSQL databases made before the admin owned them: their owner group <db>_rw, which every
-- connect-level login is a member of, could ALTER DATABASE ... CONNECTION LIMIT -1. The
-- reconciler hands each to the admin and restores its limit (contract §9, The shared cluster).
UPDATE "databases" SET "ownership_pending" = true
 WHERE "engine" = 'postgresql' AND "deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX "databases_ownership_pending_idx" ON "databases" USING btree ("id") WHERE "databases"."ownership_pending" = true;
