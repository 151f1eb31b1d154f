import { useEffect, useRef, useState } from 'react';

import { headersFor } from '../../api';

/** A visit as the live stream sends it (`GET /api/stats/live`, `GET /api/url/:id/live`). */
interface LiveVisit {
  date: string;
  link: number;
  country: string;
  city: string | null;
  referrer: string;
  browser: string;
  os: string;
  device: string;
}

/** Visits kept on screen, newest first. */
const SHOWN = 20;

type State = 'off' | 'connecting' | 'live' | 'ended';

/**
 * "Live": the visits of the account (or of one link) as they happen, from the api's Server-Sent
 * Events, read with fetch (so the workspace header goes with it, which EventSource cannot send).
 * Off until asked for; closed when turned off or when the page goes.
 */
export function LivePanel(props: { path: string; what: string }) {
  const [state, setState] = useState<State>('off');
  const [visits, setVisits] = useState<LiveVisit[]>([]);
  const [message, setMessage] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);

  useEffect(() => () => abort.current?.abort(), []);

  const stop = () => {
    abort.current?.abort();
    abort.current = null;
    setState('off');
  };

  const start = async () => {
    const controller = new AbortController();
    abort.current = controller;
    setMessage(null);
    setState('connecting');
    try {
      const res = await fetch(props.path, {
        credentials: 'same-origin',
        headers: headersFor('GET', props.path, { Accept: 'text/event-stream' }),
        signal: controller.signal,
      });
      if (!res.ok || !res.body) {
        const body = (await res.json().catch(() => null)) as { message?: string } | null;
        setMessage(body?.message ?? `The live view could not start (HTTP ${res.status}).`);
        setState('ended');
        return;
      }
      setState('live');
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let pending = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        pending += value;
        let at: number;
        while ((at = pending.indexOf('\n\n')) >= 0) {
          const block = pending.slice(0, at);
          pending = pending.slice(at + 2);
          let event = 'message';
          let data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data += line.slice(5).trim();
          }
          if (!data) continue;
          const parsed = JSON.parse(data) as LiveVisit & { reason?: string };
          if (event === 'end') setMessage(`The live view ended: ${parsed.reason ?? ''}`);
          else setVisits((shown) => [parsed, ...shown].slice(0, SHOWN));
        }
      }
      if (abort.current === controller) setState('ended');
    } catch {
      if (abort.current === controller) {
        setMessage('The live view was cut off.');
        setState('ended');
      }
    }
  };

  return (
    <section className="card live-panel" aria-labelledby="live-title">
      <div className="live-head">
        <h2 id="live-title">Live</h2>
        <span className={`live-state live-${state}`} role="status">
          {state === 'live'
            ? 'Watching'
            : state === 'connecting'
              ? 'Connecting…'
              : state === 'ended'
                ? 'Stopped'
                : 'Off'}
        </span>
        {state === 'live' || state === 'connecting' ? (
          <button type="button" onClick={stop}>
            Stop
          </button>
        ) : (
          <button type="button" onClick={() => void start()}>
            Watch visits live
          </button>
        )}
      </div>
      {message && <p className="hint">{message}</p>}
      {visits.length ? (
        <table className="live-visits">
          <caption className="visually-hidden">Latest visits of {props.what}, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time (UTC)</th>
              <th scope="col">Link</th>
              <th scope="col">Country</th>
              <th scope="col">Referrer</th>
              <th scope="col">Browser</th>
              <th scope="col">Device</th>
            </tr>
          </thead>
          <tbody>
            {visits.map((v, i) => (
              <tr key={`${v.date}-${v.link}-${visits.length - i}`}>
                <td>{v.date.slice(11)}</td>
                <td>{v.link}</td>
                <td>{v.city ? `${v.city}, ${v.country}` : v.country}</td>
                <td>{v.referrer}</td>
                <td>
                  {v.browser} · {v.os}
                </td>
                <td>{v.device}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : state === 'live' ? (
        <p className="hint">Waiting for visits of {props.what}…</p>
      ) : null}
    </section>
  );
}
