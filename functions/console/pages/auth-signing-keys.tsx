/**
 * The Signing keys card of an auth-app page (docs/contract.md §15): the key that signs now, the
 * published next key and when it can become current (at the next rotation, safely once every
 * JWKS cache holds it), and replaced keys still published until their last token expired.
 */

import type { SigningKeys } from '../api-shapes';
import { SectionCard, Truncate } from '../components';
import { When } from '../format';

/** The card; `canRotate` says whether this person sees the Manage section's rotate button. */
export function SigningKeysSection(props: { keys: SigningKeys; canRotate: boolean }) {
  const { current, next, retired } = props.keys;
  return (
    <SectionCard id="signing-keys" title="Signing keys" icon="key">
      <dl class="values">
        <dt>Current</dt>
        <dd>
          {current ? (
            <>
              <Truncate mono text={current.kid} /> <span class="hint">signing since</span>{' '}
              <When at={current.created_at} />
            </>
          ) : (
            'none yet: made when the app first signs a token'
          )}
        </dd>
        <dt>Next</dt>
        <dd>
          {next ? (
            <>
              <Truncate mono text={next.kid} /> <span class="hint">in the JWKS since</span>{' '}
              <When at={next.published_at} />
              <p class="hint">
                Becomes current at the next rotation
                {props.canRotate ? ' (Manage › Rotate signing key)' : ' (an admin rotates it)'}; every JWKS
                cache holds it from <When at={next.ready_at} />, so a rotation after that refuses no token.
              </p>
            </>
          ) : (
            'none yet: published when the app’s JWKS is first read'
          )}
        </dd>
        {retired.map((key) => (
          <>
            <dt>Replaced</dt>
            <dd>
              <Truncate mono text={key.kid} /> <span class="hint">published until</span>{' '}
              <When at={key.published_until} />
            </dd>
          </>
        ))}
      </dl>
    </SectionCard>
  );
}
