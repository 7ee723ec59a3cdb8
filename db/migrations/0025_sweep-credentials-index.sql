-- The daily sweep of own database credentials pages connection ids in order a slice a tick: with this index the page is read from the index alone, not one heap row per id (and its misses).
CREATE INDEX IF NOT EXISTS "connections_own_database_idx" ON "connections" USING btree ("id") WHERE "kind" = 'database' and "credential_mode" = 'own';
