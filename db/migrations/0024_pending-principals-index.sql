CREATE INDEX IF NOT EXISTS "principals_pending_idx" ON "principals" USING btree ("created_at") WHERE "state" = 'pending' and "revoked_at" is null;
