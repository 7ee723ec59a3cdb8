ALTER TABLE "databases" ADD COLUMN "reader_user" text;--> statement-breakpoint
ALTER TABLE "databases" ADD COLUMN "reader_password_ciphertext" text;--> statement-breakpoint
ALTER TABLE "databases" ADD COLUMN "reader_handed" boolean DEFAULT false NOT NULL;