CREATE TABLE "activity_events" (
	"seq" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text NOT NULL,
	"actor_email" text,
	"actor_name" text,
	"via" text NOT NULL,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text NOT NULL,
	"target_name" text,
	"project_id" uuid,
	"site_id" uuid,
	"account_id" uuid,
	"ip" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "activity_events_id_uq" ON "activity_events" USING btree ("id");--> statement-breakpoint
CREATE INDEX "activity_events_project_idx" ON "activity_events" USING btree ("project_id","seq") WHERE "activity_events"."project_id" is not null;--> statement-breakpoint
CREATE INDEX "activity_events_account_idx" ON "activity_events" USING btree ("account_id","seq") WHERE "activity_events"."account_id" is not null;--> statement-breakpoint
CREATE INDEX "activity_events_at_idx" ON "activity_events" USING btree ("at");
