/**
 * The console's icon set: Lucide icons (the `lucide-static` package), turned at build time into
 * CSS masks in the static stylesheet (scripts/local/build-assets.ts), so an icon costs the Worker's
 * script one short class name. Decorative: the text beside an icon names the thing.
 */

/** The icons the console uses: our name → Lucide's file name. */
export const ICONS = {
  copy: 'copy',
  check: 'check',
  database: 'database',
  bucket: 'hard-drive',
  auth: 'shield-check',
  site: 'globe',
  plus: 'plus',
  trash: 'trash-2',
  signout: 'log-out',
  settings: 'settings',
  activity: 'activity',
  members: 'users',
  project: 'folder-kanban',
  deploy: 'rocket',
  delivery: 'send',
  connections: 'plug',
  variables: 'list-tree',
  alert: 'circle-alert',
  warning: 'triangle-alert',
  empty: 'inbox',
  download: 'download',
  key: 'key-round',
  link: 'link',
  retry: 'refresh-cw',
  rotate: 'rotate-cw',
  user: 'user',
  layers: 'layers',
  ok: 'circle-check',
  info: 'info',
} as const;

/** An icon's name. */
export type IconName = keyof typeof ICONS;

/** An icon, painted in the text's colour, hidden from assistive technology. */
export const Icon = ({ name }: { name: IconName }) => <span class={`icon i-${name}`} aria-hidden="true" />;
