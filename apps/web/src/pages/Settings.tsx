import './settings.css';

import { useEffect, useRef, useState } from 'react';

import { call, client } from '../api';
import { LoadState, PageHead, useLoad } from '../ui';
import { AccountDetails, PasswordForm, ProfileForm } from './settings/Account';
import { RotateKey } from './settings/RotateKey';

/**
 * After a password change the API has ended every session, this one included: the page says so
 * and leads to the sign-in page (a full load, so that the app reads the ended session afresh).
 */
function SignedOut() {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="card signed-out" role="alert" aria-labelledby="signed-out-title">
      <h2 id="signed-out-title" ref={heading} tabIndex={-1}>
        Your password has been changed
      </h2>
      <p>
        For your security every session of your account has ended, this one too. Sign in again with
        your new password.
      </p>
      <div className="actions">
        <button
          type="button"
          className="primary"
          onClick={() => window.location.assign('/app/sign-in')}
        >
          Sign in again
        </button>
      </div>
    </section>
  );
}

/**
 * The account settings page (`/settings`): the account (`GET /api/account`), its e-mail, user
 * name and password (`PUT /api/account/update`), and the personal API key's rotation
 * (`POST /api/account/key/rotate`).
 */
export function SettingsPage(props: { sub: string }) {
  void props.sub;
  const account = useLoad(() => call(client.GET('/api/account')).then((r) => r.data), []);
  const [signedOut, setSignedOut] = useState(false);

  return (
    <div className="settings-page">
      <PageHead title="Settings" />
      {signedOut ? (
        <SignedOut />
      ) : (
        <>
          <LoadState loaded={account} what="Your account" />
          {account.data && (
            <>
              <AccountDetails account={account.data} />
              <ProfileForm account={account.data} onSaved={account.reload} />
              <PasswordForm onSignedOut={() => setSignedOut(true)} />
              <RotateKey />
            </>
          )}
        </>
      )}
    </div>
  );
}
