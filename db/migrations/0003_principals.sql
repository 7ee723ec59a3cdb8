CREATE TABLE "principals" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"resource_id" uuid NOT NULL,
	"name" text NOT NULL,
	"level" text NOT NULL,
	"credential_name" text NOT NULL,
	"secret_ciphertext" text NOT NULL,
	"allowed_sources" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "principals" ADD CONSTRAINT "principals_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "principals_resource_name_uq" ON "principals" USING btree ("kind","resource_id","name") WHERE "principals"."revoked_at" is null;--> statement-breakpoint
CREATE INDEX "principals_resource_idx" ON "principals" USING btree ("resource_id");--> statement-breakpoint
CREATE INDEX "principals_credential_idx" ON "principals" USING btree ("credential_name");