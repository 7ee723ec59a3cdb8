-- Access tokens revoked at an app's /oauth/revoke (RFC 7009; docs/contract.md §15), by `jti`,
-- kept until the token would have expired: introspection and UserInfo refuse them from then on.
-- Each revocation removes its app's expired rows, so the table holds at most the last 15 minutes'.
CREATE TABLE "auth_revoked_access_tokens" (
	"auth_app_id" uuid NOT NULL,
	"jti" uuid NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "auth_revoked_access_tokens_auth_app_id_jti_pk" PRIMARY KEY("auth_app_id","jti")
);
--> statement-breakpoint
ALTER TABLE "auth_revoked_access_tokens" ADD CONSTRAINT "auth_revoked_access_tokens_auth_app_id_auth_apps_id_fk" FOREIGN KEY ("auth_app_id") REFERENCES "public"."auth_apps"("id") ON DELETE cascade ON UPDATE no action;
