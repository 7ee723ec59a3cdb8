-- What changed, recorded by the change itself: a trigger marks a database whose network policy may now differ, in the same transaction as the write (no extra round trip). The reconciler takes marks oldest first, a bounded batch a tick.
-- seq changes with every change to the target, so the reconciler removes a mark only if nothing changed since it read it.
CREATE SEQUENCE "reconcile_marks_seq";--> statement-breakpoint
CREATE TABLE "reconcile_marks" (
	"kind" text NOT NULL,
	"target_id" uuid NOT NULL,
	"marked_at" timestamp with time zone DEFAULT now() NOT NULL,
	"seq" bigint DEFAULT nextval('reconcile_marks_seq') NOT NULL,
	CONSTRAINT "reconcile_marks_pk" PRIMARY KEY("kind","target_id")
);--> statement-breakpoint
CREATE INDEX "reconcile_marks_due_idx" ON "reconcile_marks" USING btree ("kind","marked_at");--> statement-breakpoint
-- Each step's and each sweep's progress: its cursor, its last run and its last success, so a tick resumes where the last stopped and a stuck reconciler shows.
CREATE TABLE "reconciler_state" (
	"name" text PRIMARY KEY NOT NULL,
	"cursor" text,
	"lap_started_at" timestamp with time zone,
	"last_run_at" timestamp with time zone,
	"last_ok_at" timestamp with time zone,
	"failures" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"last_count" integer DEFAULT 0 NOT NULL
);--> statement-breakpoint
-- One item a step could not finish: retried after retry_at, while the rest go on.
CREATE TABLE "reconcile_failures" (
	"step" text NOT NULL,
	"item_id" text NOT NULL,
	"attempts" integer DEFAULT 1 NOT NULL,
	"last_error" text,
	"first_failed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"retry_at" timestamp with time zone NOT NULL,
	CONSTRAINT "reconcile_failures_pk" PRIMARY KEY("step","item_id")
);--> statement-breakpoint
CREATE OR REPLACE FUNCTION "tether_mark_policy"() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.kind = 'database' THEN
    INSERT INTO public.reconcile_marks (kind, target_id) VALUES ('policy', OLD.resource_id)
      ON CONFLICT (kind, target_id) DO UPDATE SET seq = nextval('public.reconcile_marks_seq');
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.kind = 'database' THEN
    INSERT INTO public.reconcile_marks (kind, target_id) VALUES ('policy', NEW.resource_id)
      ON CONFLICT (kind, target_id) DO UPDATE SET seq = nextval('public.reconcile_marks_seq');
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "tether_mark_database_policy"() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
  INSERT INTO public.reconcile_marks (kind, target_id) VALUES ('policy', NEW.id)
    ON CONFLICT (kind, target_id) DO UPDATE SET seq = nextval('public.reconcile_marks_seq');
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "connections_mark_policy" AFTER INSERT OR DELETE OR UPDATE OF "site_id", "kind", "resource_id" ON "connections" FOR EACH ROW EXECUTE FUNCTION "tether_mark_policy"();--> statement-breakpoint
CREATE TRIGGER "principals_mark_policy" AFTER INSERT OR DELETE OR UPDATE OF "kind", "resource_id", "credential_name", "allowed_sources", "revoked_at" ON "principals" FOR EACH ROW EXECUTE FUNCTION "tether_mark_policy"();--> statement-breakpoint
CREATE TRIGGER "databases_mark_policy" AFTER UPDATE OF "deleted_at" ON "databases" FOR EACH ROW WHEN (OLD."deleted_at" IS DISTINCT FROM NEW."deleted_at") EXECUTE FUNCTION "tether_mark_database_policy"();--> statement-breakpoint
-- Every database present when this ran is checked once by the next ticks.
INSERT INTO "reconcile_marks" ("kind", "target_id", "marked_at") SELECT 'policy', "id", "created_at" FROM "databases" WHERE "deleted_at" IS NULL ON CONFLICT DO NOTHING;--> statement-breakpoint
-- The reconciler's reads, each by an index: expired principals oldest first, pending cleanups oldest first, shared connections, credential names.
CREATE INDEX "principals_expiry_idx" ON "principals" USING btree ("expires_at") WHERE "principals"."revoked_at" is null and "principals"."expires_at" is not null;--> statement-breakpoint
CREATE INDEX "credential_cleanups_pending_idx" ON "credential_cleanups" USING btree ("created_at") WHERE "credential_cleanups"."done_at" is null;--> statement-breakpoint
CREATE INDEX "credential_cleanups_name_idx" ON "credential_cleanups" USING btree ("credential_name");--> statement-breakpoint
CREATE INDEX "connections_shared_idx" ON "connections" USING btree ("created_at") WHERE "connections"."credential_mode" = 'shared';--> statement-breakpoint
CREATE INDEX "connections_credential_idx" ON "connections" USING btree ("credential_name");
