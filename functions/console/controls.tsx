/** Controls several pages share. */
import { LEVELS } from '../domain/levels';
import { CsrfField } from './layout';
import type { Kind } from './types';

/** The connection's level, changeable in place: submitted on choice with the script, by its button without. */
export function LevelForm(props: {
  action: string;
  csrf: string;
  kind: Kind;
  resourceId: string;
  level: string;
  name: string;
  extra?: Record<string, string>;
}) {
  return (
    <form
      method="post"
      action={props.action}
      class="inline"
      data-current={props.level}
      data-confirm-admin={props.kind === 'auth_app' ? `Raise ${props.name} to admin?` : undefined}
    >
      <CsrfField csrf={props.csrf} />
      <input type="hidden" name="kind" value={props.kind} />
      <input type="hidden" name="resource_id" value={props.resourceId} />
      {Object.entries(props.extra ?? {}).map(([k, v]) => (
        <input type="hidden" name={k} value={v} />
      ))}
      <select name="level" aria-label="Level" data-autosubmit>
        {LEVELS[props.kind].map((l) => (
          <option value={l} selected={l === props.level}>
            {l}
          </option>
        ))}
      </select>
      <button type="submit" data-enhanced-hide>
        Change level
      </button>
    </form>
  );
}
