-- Personal tokens: when each was last used (written at most hourly by the caller lookup itself) and read-only ones.
ALTER TABLE "account_tokens" ADD COLUMN "last_used_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "account_tokens" ADD COLUMN "read_only" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Invitations: a project role offered to one e-mail address, redeemed once by the hash of its token.
CREATE TABLE "invitations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL REFERENCES "projects"("id") ON DELETE cascade,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"token_hash" text NOT NULL UNIQUE,
	"invited_by" uuid REFERENCES "accounts"("id") ON DELETE set null,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"accepted_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);--> statement-breakpoint
CREATE INDEX "invitations_project_idx" ON "invitations" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "invitations_email_idx" ON "invitations" USING btree ("email");
