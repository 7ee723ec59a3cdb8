/** Environment variable names a user may set. */
export const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,255}$/;
