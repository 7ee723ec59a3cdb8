ALTER TABLE "deliveries" ADD COLUMN "live_at" timestamp with time zone;
