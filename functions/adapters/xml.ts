/**
 * Just enough XML reading for the fixed, flat answers of the AWS IAM Query API and S3 errors
 * (Workers have no DOMParser). Only reads elements by name; never evaluates anything.
 */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Decodes the five predefined entities and numeric references. */
export function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref.startsWith('#x') || ref.startsWith('#X'))
      return String.fromCodePoint(Number.parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(Number.parseInt(ref.slice(1), 10));
    return ENTITIES[ref] ?? whole;
  });
}

/** The text of the first `<tag>` in `xml`; throws when absent unless a fallback is given. */
export function xmlText(xml: string, tag: string, fallback?: string): string {
  const match = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(xml);
  if (match?.[1] !== undefined) return decodeXml(match[1]);
  if (fallback !== undefined) return fallback;
  throw new Error(`response has no <${tag}>`);
}

/** The `<member>` elements inside the first `<list>` element. */
export function xmlMembers(xml: string, list: string): string[] {
  const inner = new RegExp(`<${list}>([\\s\\S]*?)</${list}>`).exec(xml)?.[1];
  if (!inner) return [];
  return [...inner.matchAll(/<member>([\s\S]*?)<\/member>/g)].map((m) => m[1] ?? '');
}

/** Code and message of an AWS error body (IAM `<ErrorResponse><Error>` or S3 `<Error>`). */
export function xmlError(xml: string): { code: string; message: string } {
  return { code: xmlText(xml, 'Code', 'Unknown'), message: xmlText(xml, 'Message', '').slice(0, 200) };
}
