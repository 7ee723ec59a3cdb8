/** Schemes an auth app's allowed origins never take (redirect-uris.ts). */

/** Schemes that are never an allowed origin, whatever follows them. */
export const REFUSED_SCHEMES = ['file', 'javascript', 'data', 'blob', 'about', 'vbscript', 'ftp'] as const;

/**
 * Schemes a browser or the OS handles itself: a "custom scheme" named like one of these would
 * hand the code to the browser (intent:// launches any Android app, chrome:// its own pages).
 */
export const BROWSER_INTERNAL_SCHEMES = [
  'intent',
  'android-app',
  'content',
  'chrome',
  'chrome-extension',
  'chrome-search',
  'chrome-untrusted',
  'devtools',
  'edge',
  'brave',
  'opera',
  'vivaldi',
  'moz-extension',
  'resource',
  'safari-extension',
  'safari-web-extension',
  'ms-browser-extension',
  'view-source',
  'filesystem',
  'jar',
  'wyciwyg',
] as const;

/**
 * Schemes a browser or the OS opens itself, on iOS, Android, macOS or Windows: another browser
 * (`googlechrome://`, `x-safari-https://`), an installer or store (`itms-services://`), a call,
 * message or mail (`tel://`, `mailto://`), settings. A redirect there hands the code to that
 * handler, never to the app.
 */
export const OS_HANDLED_SCHEMES = [
  'googlechrome',
  'googlechromes',
  'firefox',
  'firefox-focus',
  'microsoft-edge',
  'microsoft-edge-http',
  'microsoft-edge-https',
  'opera-http',
  'opera-https',
  'brave',
  'x-safari-http',
  'x-safari-https',
  'x-web-search',
  'itms',
  'itms-apps',
  'itms-appss',
  'itms-services',
  'itms-books',
  'itms-bookss',
  'macappstore',
  'market',
  'ms-windows-store',
  'ms-settings',
  'prefs',
  'app-prefs',
  'app-settings',
  'shortcuts',
  'tel',
  'telprompt',
  'callto',
  'sms',
  'smsto',
  'mms',
  'imessage',
  'facetime',
  'facetime-audio',
  'mailto',
  'message',
  'maps',
  'geo',
  'webcal',
] as const;
