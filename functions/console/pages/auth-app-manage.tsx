/**
 * An auth app's lifecycle for admins, beside its Settings: a new server key (delivered to the
 * connected sites, the old one refused at once), a new signing key (the JWKS keeps the old one
 * until its tokens expire), and deleting the app. Each asks first and says what it ends.
 */
import { Hono } from 'hono';
import { act, consolePath, formOf, unconfirmed } from '../actions';
import { DangerRow, SectionCard } from '../components';
import { path } from '../console-api';
import { type ConsoleEnv, signedIn } from '../console-env';
import { ConfirmForm, ConfirmPage } from '../layout';

/** What each action is called and what it does, as its confirmation says it. */
const ACTIONS = {
  'server-key': {
    label: 'Rotate server key',
    question: (name: string) =>
      `Give ${name} a new server key? Connected sites get it by live patch (SERVICE_AUTH_SERVER_KEY); the current key is refused at once.`,
    done: (name: string) =>
      `${name} has a new server key; the Delivery tab of each connected site shows where it went.`,
  },
  'signing-key': {
    label: 'Rotate signing key',
    question: (name: string) =>
      `Sign ${name}'s access tokens with a new key? Tokens signed with the current key keep working until they expire.`,
    done: (name: string) => `${name} signs with a new key.`,
  },
  delete: {
    label: 'Delete auth app',
    question: (name: string) =>
      `Delete ${name}? Its connections are removed from their sites, its end users and their sessions end, and its app ID is free again.`,
    done: (name: string) => `Deleted auth app ${name}.`,
  },
} as const;

type Action = keyof typeof ACTIONS;

/** The Manage section of an auth-app page (admins only). */
export function ManageSection(props: { base: string; name: string; csrf: string }) {
  return (
    <SectionCard id="manage" title="Manage" icon="warning" class="danger-zone">
      {(Object.keys(ACTIONS) as Action[]).map((action) => (
        <DangerRow title={ACTIONS[action].label} text={ACTIONS[action].question(props.name)}>
          <ConfirmForm
            action={`${props.base}/manage/${action}`}
            csrf={props.csrf}
            label={ACTIONS[action].label}
            question={ACTIONS[action].question(props.name)}
            fields={{ name: props.name }}
            danger={action === 'delete' ? undefined : false}
          />
        </DangerRow>
      ))}
    </SectionCard>
  );
}

export const authAppManagePages = new Hono<ConsoleEnv>();

authAppManagePages.post(
  '/projects/:p/auth-apps/:id/manage/:action{(?:server-key|signing-key|delete)}',
  async (c) => {
    const { api, csrf } = signedIn(c);
    const { p, id } = c.req.param();
    const action = c.req.param('action') as Action;
    const form = await formOf(c);
    const back = consolePath.service(p, 'auth-apps', id);
    const name = form.name || 'this auth app';
    const words = ACTIONS[action];
    if (unconfirmed(form)) {
      return c.html(
        <ConfirmPage
          title={words.label}
          question={words.question(name)}
          action={`${back}/manage/${action}`}
          fields={{ name }}
          back={back}
          csrf={csrf}
        />,
      );
    }
    const target = path`/projects/${p}/auth-apps/${id}`;
    if (action === 'delete') {
      return act(c, consolePath.project(p), async () => {
        await api.delete(target);
        return words.done(name);
      });
    }
    return act(c, back, async () => {
      await api.post(`${target}/${action}/rotate`);
      return words.done(name);
    });
  },
);
