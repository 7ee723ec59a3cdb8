CREATE TABLE "site_targets" (
	"site_id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"type" text NOT NULL,
	"config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"secret_ciphertext" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "site_targets_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action
);--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "seq" bigint;--> statement-breakpoint
CREATE INDEX "deliveries_target_created_idx" ON "deliveries" USING btree ("target_id","created_at");
