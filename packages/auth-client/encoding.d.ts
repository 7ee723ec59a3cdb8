/** `bytes` as unpadded base64url. */
export function base64url(bytes: Uint8Array): string;
/** `bytes` as lower-case hex. */
export function hex(bytes: ArrayBuffer): string;
/** A query string of `params`. */
export function queryString(params: Record<string, string>): string;
/** The query parameters of a URL of any scheme. */
export function queryOf(url: string): Record<string, string>;
