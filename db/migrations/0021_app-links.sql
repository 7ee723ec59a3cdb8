ALTER TABLE "auth_apps" ADD COLUMN "app_links" jsonb DEFAULT '{"ios_app_ids":[],"android_package_names":[]}'::jsonb NOT NULL;
