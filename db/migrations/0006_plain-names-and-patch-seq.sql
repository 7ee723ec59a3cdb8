ALTER TABLE "connections" ADD COLUMN "holds_plain" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "patch_seq" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Until now the earliest connection of each family held the plain names: it keeps them.
UPDATE "connections" SET "holds_plain" = true WHERE "id" IN (
  SELECT DISTINCT ON (c."site_id", CASE WHEN c."kind" = 'database' THEN coalesce(d."engine", 'postgresql') ELSE c."kind" END) c."id"
    FROM "connections" c
    LEFT JOIN "databases" d ON c."kind" = 'database' AND d."id" = c."resource_id"
   ORDER BY c."site_id", CASE WHEN c."kind" = 'database' THEN coalesce(d."engine", 'postgresql') ELSE c."kind" END, c."created_at", c."id"
);
