/**
 * The one table every console list uses: column headers, one row per item, each cell labelled
 * with its column so that at phone width (where the table becomes one block per row) every value
 * still says what it is; an empty list says so in words instead.
 */
import type { Child } from 'hono/jsx';

/** A column: its header, and what each row shows under it. */
export interface Column<T> {
  label: string;
  cell: (row: T) => Child;
  /** Classes of the column's cells (`names` for lists of variable names). */
  class?: string;
  /** Shown only when true (change controls for writers). */
  when?: boolean;
}

/** A list as a table, or `empty` when there is nothing to list. */
export function DataTable<T>(props: {
  rows: readonly T[];
  columns: Column<T>[];
  empty: Child;
  class?: string;
}) {
  if (props.rows.length === 0) return <p>{props.empty}</p>;
  const columns = props.columns.filter((c) => c.when !== false);
  return (
    <div class="table-wrap">
      <table class={props.class ? `stack-sm ${props.class}` : 'stack-sm'}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col">{c.label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr>
              {columns.map((c) => (
                <td data-label={c.label} class={c.class}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
