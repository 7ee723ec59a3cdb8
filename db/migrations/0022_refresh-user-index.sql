CREATE INDEX IF NOT EXISTS "auth_refresh_tokens_user_idx" ON "auth_refresh_tokens" USING btree ("user_id","family_id","created_at");
