-- A connection's credential rotation (docs/contract.md §14): the new secret valid beside the old
-- one, delivered, then the old one retired. One row per connection (its latest rotation). No
-- foreign key to connections: a disconnect leaves the row for the reconciler to retire the old
-- credential if the disconnect's own drop failed.
CREATE TABLE "connection_rotations" (
	"connection_id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"site_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"resource_id" uuid NOT NULL,
	"old_credential_name" text,
	"delivery_id" uuid,
	"immediate" boolean DEFAULT false NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"live_at" timestamp with time zone,
	"retired_at" timestamp with time zone,
	"retires_by" timestamp with time zone,
	"old_sessions" integer,
	"last_error" text
);
--> statement-breakpoint
CREATE INDEX "connection_rotations_open_idx" ON "connection_rotations" USING btree ("started_at") WHERE "retired_at" is null;
--> statement-breakpoint
CREATE INDEX "connection_rotations_old_name_idx" ON "connection_rotations" USING btree ("old_credential_name") WHERE "retired_at" is null;
--> statement-breakpoint
CREATE INDEX "connection_rotations_site_idx" ON "connection_rotations" USING btree ("site_id") WHERE "retired_at" is null;
--> statement-breakpoint
CREATE INDEX "connection_rotations_delivery_idx" ON "connection_rotations" USING btree ("delivery_id") WHERE "retired_at" is null;
