// @ts-check
/**
 * API fields as people read them: `client_secret_set: true` is "client secret: set",
 * `access_key_id` is "access key ID", a list is its items, a flag yes or no. Used wherever the
 * tool shows an object field by field (tables and lines alike), so no raw key reaches a person.
 */

/** Abbreviations written in capitals. */
const CAPITALS = /** @type {Record<string, string>} */ ({
  id: 'ID',
  ids: 'IDs',
  url: 'URL',
  urls: 'URLs',
  uri: 'URI',
  api: 'API',
  ip: 'IP',
});

/**
 * A field name in words: `client_secret_set` → `client secret`, `native_client_ids` → `native client IDs`.
 * @param {string} key
 */
export function fieldWords(key) {
  return key
    .replace(/_set$/, '')
    .split('_')
    .filter(Boolean)
    .map((word) => CAPITALS[word] ?? word)
    .join(' ');
}

/**
 * A field's value in words: a `_set` flag is set or not set, another flag yes or no, a list its
 * items (`empty` when it has none), an object its `name value` pairs.
 * @param {string} key
 * @param {unknown} value
 * @param {string} empty
 * @returns {string}
 */
export function valueWords(key, value, empty = 'none') {
  if (typeof value === 'boolean')
    return key.endsWith('_set') ? (value ? 'set' : 'not set') : value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.map(String).join(', ') || empty;
  if (value !== null && typeof value === 'object') {
    const pairs = Object.entries(value).filter(([, v]) => v !== null && v !== undefined);
    return pairs.map(([k, v]) => `${fieldWords(k)} ${valueWords(k, v, empty)}`).join(', ') || empty;
  }
  return String(value);
}

/**
 * The fields of `object` that have a value, as [words, value in words] pairs, in its order.
 * @param {Record<string, unknown>} object
 * @param {string} [empty] what an empty list or object reads as
 * @returns {[string, string][]}
 */
export function fieldsInWords(object, empty = 'none') {
  return Object.entries(object)
    .filter(([, value]) => value !== null && value !== undefined)
    .map(([key, value]) => [fieldWords(key), valueWords(key, value, empty)]);
}
