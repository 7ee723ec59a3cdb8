-- A service credential's or a principal's old secret kept valid for `?grace_seconds=N` after a
-- rotate (docs/contract.md §14): the reconciler retires it at `retires_at`, or at once when its
-- principal is revoked or a later rotate refuses it. `principal_id` null: the service's own key.
CREATE TABLE "credential_retirements" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"resource_id" uuid NOT NULL,
	"credential_name" text NOT NULL,
	"principal_id" uuid,
	"retires_at" timestamp with time zone NOT NULL,
	"retired_at" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "credential_retirements_open_idx" ON "credential_retirements" USING btree ("retires_at") WHERE "retired_at" is null;
--> statement-breakpoint
CREATE INDEX "credential_retirements_name_idx" ON "credential_retirements" USING btree ("credential_name") WHERE "retired_at" is null;
--> statement-breakpoint
CREATE INDEX "credential_retirements_owner_idx" ON "credential_retirements" USING btree ("resource_id", "principal_id") WHERE "retired_at" is null;
