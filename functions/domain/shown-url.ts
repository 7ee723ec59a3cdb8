/**
 * A URL as it may be shown back or recorded (docs/contract.md §9, Webhook URLs): its query is
 * treated as a secret (receivers often take a token there), so it is replaced by `?redacted`;
 * user info and fragment are left out for the same reason. Scheme, host, port and path stay.
 */
export function shownUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return '(an invalid URL)';
  }
  const query = url.search.length > 1 ? '?redacted' : '';
  return `${url.protocol}//${url.host}${url.pathname}${query}`;
}
