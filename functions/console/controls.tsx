/** Controls several pages share. */
import { levelsOf } from '../domain/levels';
import type { Kind } from './api-shapes';
import { levelChangeConsequence, levelMeaning } from './format';
import { CsrfField } from './layout';

/**
 * The connection's level, changeable in place: submitted on choice with the script, by its
 * button without; a change with a consequence (ending a database's sessions) or a raise to
 * admin asks first.
 */
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
      data-confirm-admin={`Raise ${props.name} to admin? Its managed key may then administer the app's end users.`}
      data-confirm-change={
        levelChangeConsequence(props.kind)
          ? `Change ${props.name} to {level}? ${levelChangeConsequence(props.kind)}`
          : undefined
      }
    >
      <CsrfField csrf={props.csrf} />
      <input type="hidden" name="kind" value={props.kind} />
      <input type="hidden" name="resource_id" value={props.resourceId} />
      <input type="hidden" name="name" value={props.name} />
      {Object.entries(props.extra ?? {}).map(([k, v]) => (
        <input type="hidden" name={k} value={v} />
      ))}
      <select name="level" aria-label="Level" data-autosubmit>
        {levelsOf(props.kind).map((l) => (
          <option value={l} selected={l === props.level} title={levelMeaning(props.kind, l)}>
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

/** A change that needs no confirmation, as one button posting a form (with the CSRF token and `fields`). */
export function PostButton(props: {
  action: string;
  csrf: string;
  label: string;
  fields?: Record<string, string>;
  secondary?: boolean;
  /** Destruction (red); only for what removes something. */
  danger?: boolean;
}) {
  return (
    <form method="post" action={props.action} class="inline">
      <CsrfField csrf={props.csrf} />
      {Object.entries(props.fields ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button type="submit" class={props.danger ? 'danger' : props.secondary ? 'secondary' : undefined}>
        {props.label}
      </button>
    </form>
  );
}
