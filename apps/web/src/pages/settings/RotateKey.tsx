import { useEffect, useRef, useState } from 'react';

import { ApiError, call, client } from '../../api';
import { ConfirmButton, ShownOnce, toApiError } from '../../ui';

/**
 * The personal API key (`POST /api/account/key/rotate`): rotating replaces it at once (the old
 * one stops working on every api instance), after a confirmation; the new key is shown once.
 */
export function RotateKey() {
  const [key, setKey] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const shown = useRef<HTMLDivElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    if (key) shown.current?.querySelector('input')?.focus();
  }, [key]);

  const rotate = async () => {
    setError(null);
    try {
      const res = await call(client.POST('/api/account/key/rotate'));
      setKey(res.apikey);
    } catch (err) {
      setError(toApiError(err));
    }
  };

  return (
    <section className="card" aria-labelledby="apikey-title">
      <h2 id="apikey-title" ref={heading} tabIndex={-1}>
        Personal API key
      </h2>
      <p>
        Your personal key acts as you in your own workspace, with everything your account may do.
        Rotate it if it may have leaked: the old key stops working at once, everywhere it is used.
        Signed-in browsers are not affected.
      </p>
      {key && (
        <div ref={shown}>
          <ShownOnce
            label="New API key"
            value={key}
            onDone={() => {
              setKey(null);
              heading.current?.focus();
            }}
          />
        </div>
      )}
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      <div className="actions">
        <ConfirmButton confirmLabel="Confirm rotating the API key" action={rotate}>
          Rotate API key
        </ConfirmButton>
      </div>
    </section>
  );
}
