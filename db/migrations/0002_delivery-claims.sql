ALTER TABLE "deliveries" ADD COLUMN "claimed_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "last_attempt_at" timestamp with time zone;