-- Operator-made account tokens expire (docs/contract.md §3, docs/accounts.md): every live token
-- made before tokens expired gets the personal tokens' default 90 days from now.
UPDATE "account_tokens" SET "expires_at" = now() + interval '90 days'
  WHERE "kind" = 'token' AND "expires_at" IS NULL AND "revoked_at" IS NULL;
