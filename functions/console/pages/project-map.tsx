/**
 * The project map: sites × services with each connection's level at a glance, each cell a link
 * to the connection on its site's Connections tab, an empty one (for writers) a link to connect
 * them there with the service chosen. Headers are plain text: the links named after
 * a site or a service stay one each on the page (contract §8 finds them by name). At phone width
 * the table becomes one labelled block per site.
 */
import { consolePath } from '../actions';
import type { AuthApp, Bucket, Connection, Database, Kind, Site } from '../api-shapes';
import { authAppLabel, kindWord } from '../format';
import { Icon } from '../icons';
import { Card } from '../layout';

/** A service as a column of the map. */
interface Column {
  kind: Kind;
  id: string;
  name: string;
}

/** The map's columns: databases, buckets, then auth apps. */
export function mapColumns(databases: Database[], buckets: Bucket[], authApps: AuthApp[]): Column[] {
  return [
    ...databases.map((d) => ({ kind: 'database' as const, id: d.id, name: d.name })),
    ...buckets.map((b) => ({ kind: 'bucket' as const, id: b.id, name: b.name })),
    ...authApps.map((a) => ({ kind: 'auth_app' as const, id: a.id, name: authAppLabel(a) })),
  ];
}

export function ProjectMap(props: {
  slug: string;
  sites: Site[];
  columns: Column[];
  connections: Connection[];
  /** Whether empty cells offer to connect. */
  writer: boolean;
}) {
  const { slug, sites, columns } = props;
  const level = new Map(props.connections.map((c) => [`${c.site_id}:${c.kind}:${c.resource_id}`, c.level]));
  return (
    <Card id="map" title="Project map">
      {sites.length === 0 || columns.length === 0 ? (
        <p>The map shows which site uses which service once the project has both.</p>
      ) : (
        <>
          <p class="hint">
            Which site uses which service, at which level. A cell opens the connection or connects them.
          </p>
          <div class="table-wrap">
            <table class="stack-sm map">
              <thead>
                <tr>
                  <th scope="col">Site</th>
                  {columns.map((col) => (
                    <th scope="col">
                      <span class="cell-truncate" title={col.name}>
                        {col.name}
                      </span>
                      <span class="hint">{kindWord(col.kind)}</span>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {sites.map((site) => (
                  <tr>
                    <th scope="row">{site.slug}</th>
                    {columns.map((col) => {
                      const at = level.get(`${site.id}:${col.kind}:${col.id}`);
                      return (
                        <td data-label={`${col.name} (${kindWord(col.kind)})`} class={at ? 'on' : undefined}>
                          {at ? (
                            <a class="cell" href={consolePath.site(slug, site.id)}>
                              {at}
                            </a>
                          ) : props.writer ? (
                            <a
                              class="cell connect"
                              href={`${consolePath.site(slug, site.id)}?service=${encodeURIComponent(`${col.kind}:${col.id}`)}#connect`}
                              aria-label={`Connect ${site.slug} to ${col.name}`}
                            >
                              <span class="vh">not connected: </span>
                              <Icon name="plus" />
                              Connect
                            </a>
                          ) : (
                            <span class="hint">not connected</span>
                          )}
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </Card>
  );
}
