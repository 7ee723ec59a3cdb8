CREATE TABLE "auth_signing_keys" (
	"id" uuid PRIMARY KEY NOT NULL,
	"auth_app_id" uuid NOT NULL,
	"alg" text NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"private_jwk_ciphertext" text NOT NULL,
	"retired_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "auth_users_app_email_uq";--> statement-breakpoint
ALTER TABLE "account_tokens" ADD COLUMN "minted_by" uuid;--> statement-breakpoint
ALTER TABLE "auth_apps" ADD COLUMN "require_issued_nonce" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "auth_signing_keys" ADD CONSTRAINT "auth_signing_keys_auth_app_id_auth_apps_id_fk" FOREIGN KEY ("auth_app_id") REFERENCES "public"."auth_apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "auth_signing_keys_app_idx" ON "auth_signing_keys" USING btree ("auth_app_id");--> statement-breakpoint
ALTER TABLE "account_tokens" ADD CONSTRAINT "account_tokens_minted_by_account_tokens_id_fk" FOREIGN KEY ("minted_by") REFERENCES "public"."account_tokens"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "account_tokens_minted_by_idx" ON "account_tokens" USING btree ("minted_by");--> statement-breakpoint
CREATE UNIQUE INDEX "auth_users_app_verified_email_uq" ON "auth_users" USING btree ("auth_app_id","email") WHERE "auth_users"."email_verified";--> statement-breakpoint
CREATE INDEX "auth_users_app_email_idx" ON "auth_users" USING btree ("auth_app_id","email");