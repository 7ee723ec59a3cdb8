/**
 * The connection string a MongoDB user is handed. MONGODB_PUBLIC_HOST is where apps reach the
 * deployment: `host[:port][,host:port…]` gives a `mongodb://` string, and a value starting
 * `mongodb+srv://` (how Atlas publishes its clusters; SRV turns TLS on) keeps that scheme.
 * Users live in the admin database, with roles on their one database only.
 */
export function mongodbUri(publicHost: string, user: string, password: string, database: string): string {
  const srv = /^mongodb\+srv:\/\/(.+?)\/*$/.exec(publicHost);
  const scheme = srv ? 'mongodb+srv' : 'mongodb';
  const hosts = srv?.[1] ?? publicHost.replace(/^mongodb:\/\//, '').replace(/\/+$/, '');
  const credentials = `${encodeURIComponent(user)}:${encodeURIComponent(password)}`;
  return `${scheme}://${credentials}@${hosts}/${database}?${new URLSearchParams({ authSource: 'admin' })}`;
}
