/**
 * Reading the XML answers of the AWS IAM Query API and S3 errors with `fast-xml-parser`
 * (Workers have no DOMParser). Values stay text (no number or boolean guessing), entities and
 * character references are decoded, attributes and namespaces are ignored; nothing is ever
 * evaluated or fetched (a DOCTYPE is refused, so no declared entity is ever expanded).
 */
import { loadOnce } from '../lib/load-once';

/** A parsed element: its text, or its children by name (a repeated name gives a list). */
export type XmlNode = string | { [name: string]: XmlNode | XmlNode[] };

/**
 * The parser, its module imported by the first answer read: only the bucket kind's adapter reads
 * XML, so an isolate that never calls IAM or S3 (every sign-in) never loads it.
 */
const parserOf = loadOnce(() =>
  import('fast-xml-parser').then(
    ({ XMLParser }) =>
      new XMLParser({
        ignoreAttributes: true,
        removeNSPrefix: true,
        parseTagValue: false,
        trimValues: false,
        processEntities: true,
        // Numeric character references (&#x2F;) as well as the five XML entities.
        htmlEntities: true,
        // IAM lists hold <member> elements: always a list, also with one member.
        isArray: (name) => name === 'member',
      }),
  ),
);

/** The parsed document of an answer's `text`; text that is not XML stays as it is. */
export async function xmlDocument(text: string): Promise<XmlNode> {
  if (!text.trimStart().startsWith('<')) return text;
  // AWS never sends a DOCTYPE; one could only declare entities to expand.
  if (/<!DOCTYPE/i.test(text)) throw new Error('response holds a DOCTYPE');
  return (await parserOf()).parse(text) as XmlNode;
}

/** The first element named `tag` in document order, searched depth-first. */
function find(node: XmlNode, tag: string): XmlNode | XmlNode[] | undefined {
  if (typeof node === 'string') return undefined;
  for (const [name, value] of Object.entries(node)) {
    if (name === tag) return value;
    for (const child of Array.isArray(value) ? value : [value]) {
      const found = find(child, tag);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** The text of the first `<tag>` in `xml` (a parsed document or element); throws when absent unless a fallback is given. */
export function xmlText(xml: XmlNode, tag: string, fallback?: string): string {
  const found = find(xml, tag);
  const value = Array.isArray(found) ? found[0] : found;
  if (typeof value === 'string') return value;
  if (value !== undefined && typeof value === 'object' && Object.keys(value).length === 0) return '';
  if (fallback !== undefined) return fallback;
  throw new Error(`response has no <${tag}>`);
}

/** The `<member>` elements inside the first `<list>` element. */
export function xmlMembers(xml: XmlNode, list: string): XmlNode[] {
  const found = find(xml, list);
  const container = Array.isArray(found) ? found[0] : found;
  if (container === undefined || typeof container === 'string') return [];
  const members = container.member;
  if (members === undefined) return [];
  return Array.isArray(members) ? members : [members];
}

/** Code and message of an AWS error body (IAM `<ErrorResponse><Error>` or S3 `<Error>`). */
export async function xmlError(xml: string): Promise<{ code: string; message: string }> {
  let doc: XmlNode;
  try {
    doc = await xmlDocument(xml);
  } catch {
    return { code: 'Unknown', message: '' };
  }
  return { code: xmlText(doc, 'Code', 'Unknown'), message: xmlText(doc, 'Message', '').slice(0, 200) };
}
