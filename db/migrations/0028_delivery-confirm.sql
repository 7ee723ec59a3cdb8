-- A delivery written to its platform but not yet live where the app runs (a Vercel redeploy waited to READY, Fly Machines updated one at a time) keeps the step it is at here; null once live or when nothing follows.
ALTER TABLE "deliveries" ADD COLUMN "confirm_state" jsonb;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "deliveries_confirming_idx" ON "deliveries" USING btree ("last_attempt_at") WHERE "confirm_state" is not null;
