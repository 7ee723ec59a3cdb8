/**
 * Files the bundler imports as text (wrangler.toml `[[rules]]` of type Text): their content as
 * a string.
 */
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  const text: string;
  export default text;
}
declare module 'swagger-ui-dist/swagger-ui.css' {
  const text: string;
  export default text;
}
