import './stats.css';

import { FormEvent, ReactNode, useEffect, useId, useState } from 'react';

import { ApiError, call, client, Schemas } from '../api';
import { Link } from '../router';
import { Field, FormError, LoadState, PageHead, useLoad } from '../ui';
import { Bars, Dimensions } from './stats/Bars';
import { ClicksChart } from './stats/Chart';
import { ExportButton } from './stats/Export';
import { LivePanel } from './stats/Live';
import {
  customOf,
  formatCount,
  formatRange,
  Interval,
  INTERVALS,
  Preset,
  PRESETS,
  queryOf,
  Range,
  rangeFromSearch,
  searchOf,
} from './stats/range';

type RangeStats = Schemas['RangeStatsView'];
type AccountStats = Schemas['AccountStatsView'];

/** The API's names of the range's fields (a 400 names one of them). */
const RANGE_FIELDS = ['from', 'to', 'interval'];

/**
 * The statistics page: `/stats`, the whole account (`GET /api/stats`, with its most visited
 * links), and `/stats/<id>`, one short link (`GET /api/url/:id` for its addresses,
 * `GET /api/url/:id/stats` for the range). Both have the range picker, the totals, the series
 * as a chart (and a table), the dimensions as bars, and a CSV export.
 */
export function StatsPage(props: { sub: string }) {
  const [range, setRange] = useState<Range>(() => rangeFromSearch(window.location.search));
  const sub = props.sub.replace(/\/+$/, '');
  const linkId = /^\/([1-9]\d{0,15})$/.exec(sub)?.[1];

  // the range in the address, so that a reload (or a shared address) shows the same
  useEffect(() => {
    const search = searchOf(range);
    const url = `${window.location.pathname}${search ? `?${search}` : ''}`;
    if (url !== `${window.location.pathname}${window.location.search}`)
      window.history.replaceState(window.history.state, '', url);
  });

  if (sub !== '' && !linkId)
    return (
      <>
        <PageHead title="Statistics" />
        <p className="error" role="alert">
          There is no statistics page at this address.
        </p>
        <p>
          <Link to="/stats">Statistics of your account</Link> · <Link to="/links">Your links</Link>
        </p>
      </>
    );
  return linkId ? (
    <LinkStats key={linkId} id={Number(linkId)} range={range} onRange={setRange} />
  ) : (
    <AccountStatsView range={range} onRange={setRange} />
  );
}

/** The whole account: every short code together, and the most visited links. */
function AccountStatsView(props: { range: Range; onRange: (r: Range) => void }) {
  const query = queryOf(props.range);
  const stats = useLoad(
    () => call(client.GET('/api/stats', { params: { query } })).then((r) => r.data),
    [query.from, query.to, query.interval],
  );
  return (
    <>
      <PageHead title="Statistics">
        <ExportButton path="/api/urls/export" label="Download links as CSV" fileName="links.csv" />
      </PageHead>
      <p className="stats-intro">
        Every short link, QR code and bio page of your account together.{' '}
        <Link to="/links">Open a link</Link> to see its own statistics.
      </p>
      <LivePanel path="/api/stats/live" what="your account" />
      <RangePicker range={props.range} onRange={props.onRange} loaded={stats} />
      {stats.data && (
        <StatsBody stats={stats.data} busy={stats.loading}>
          <TopLinks links={stats.data.topLinks} />
        </StatsBody>
      )}
    </>
  );
}

/** One short link: its addresses at the top, its statistics over the range, its CSV export. */
function LinkStats(props: { id: number; range: Range; onRange: (r: Range) => void }) {
  const query = queryOf(props.range);
  const link = useLoad(
    () =>
      call(client.GET('/api/url/{id}', { params: { path: { id: props.id } } })).then(
        (r) => r.details,
      ),
    [props.id],
  );
  const stats = useLoad(
    () =>
      call(client.GET('/api/url/{id}/stats', { params: { path: { id: props.id }, query } })).then(
        (r) => r.data,
      ),
    [props.id, query.from, query.to, query.interval],
  );

  if (link.error)
    return (
      <>
        <PageHead title="Link statistics" />
        <div className="card" role="alert">
          <p className="error">
            {link.error.status === 404
              ? 'This link cannot be shown: it does not exist, or it belongs to another account.'
              : `This link could not be loaded: ${link.error.message}`}
          </p>
          <p>
            <Link to="/links">Back to your links</Link> ·{' '}
            <Link to="/stats">Statistics of your account</Link>
          </p>
        </div>
      </>
    );

  const details = link.data;
  const exportQuery = new URLSearchParams({
    from: stats.data?.from ?? query.from,
    to: stats.data?.to ?? query.to,
  });
  return (
    <>
      <PageHead title="Link statistics">
        <ExportButton
          path={`/api/url/${props.id}/stats/export?${exportQuery.toString()}`}
          label="Download CSV"
          fileName={`link-${props.id}-stats.csv`}
        />
      </PageHead>
      <nav aria-label="Back" className="stats-back">
        <Link to="/links">← All links</Link> · <Link to="/stats">Account statistics</Link>
      </nav>
      <LoadState loaded={link} what="the link" />
      {details && (
        <dl className="link-head card">
          <div>
            <dt>Short URL</dt>
            <dd>
              <a href={details.shorturl} rel="noreferrer">
                {details.shorturl}
              </a>
              {details.title ? <span className="hint"> · {details.title}</span> : null}
            </dd>
          </div>
          <div>
            <dt>Target</dt>
            <dd>
              <a href={details.longurl} rel="noreferrer noopener" target="_blank">
                {details.longurl}
              </a>
            </dd>
          </div>
          <div>
            <dt>All time</dt>
            <dd>
              {formatCount(details.clicks)} clicks · {formatCount(details.uniqueClicks)} daily
              unique visitors
            </dd>
          </div>
        </dl>
      )}
      <LivePanel path={`/api/url/${props.id}/live`} what="this link" />
      <RangePicker range={props.range} onRange={props.onRange} loaded={stats} />
      {stats.data && <StatsBody stats={stats.data} busy={stats.loading} />}
    </>
  );
}

/**
 * The range: a preset (applied at once) or custom dates (applied by "Apply"), and the interval.
 * The API's errors about `from`, `to` or `interval` show by their field; any other under it.
 */
function RangePicker(props: {
  range: Range;
  onRange: (r: Range) => void;
  loaded: { error: ApiError | null; loading: boolean };
}) {
  const { range, onRange } = props;
  const [from, setFrom] = useState(range.preset === 'custom' ? range.from : '');
  const [to, setTo] = useState(range.preset === 'custom' ? range.to : '');
  const formId = useId();

  const choosePreset = (preset: Preset) => {
    if (preset === 'custom') {
      const custom = customOf(range);
      setFrom(custom.from);
      setTo(custom.to);
      onRange(custom);
    } else onRange({ ...range, preset, from: '', to: '' });
  };
  const apply = (e: FormEvent) => {
    e.preventDefault();
    onRange({ ...range, preset: 'custom', from, to });
  };
  const error = props.loaded.error;
  return (
    <form className="range card" aria-label="Date range" onSubmit={apply} noValidate id={formId}>
      <div className="range-fields">
        <Field label="Range">
          <select value={range.preset} onChange={(e) => choosePreset(e.target.value as Preset)}>
            {PRESETS.map((p) => (
              <option key={p.value} value={p.value}>
                {p.name}
              </option>
            ))}
          </select>
        </Field>
        {range.preset === 'custom' && (
          <>
            <Field label="From" names={['from']} error={error}>
              <input type="date" value={from} required onChange={(e) => setFrom(e.target.value)} />
            </Field>
            <Field label="To" names={['to']} error={error}>
              <input type="date" value={to} required onChange={(e) => setTo(e.target.value)} />
            </Field>
          </>
        )}
        <Field label="Per" names={['interval']} error={error}>
          <select
            value={range.interval}
            onChange={(e) => onRange({ ...range, interval: e.target.value as Interval })}
          >
            {INTERVALS.map((i) => (
              <option key={i.value} value={i.value}>
                {i.name}
              </option>
            ))}
          </select>
        </Field>
      </div>
      {range.preset === 'custom' && (
        <p className="hint range-hint">Days are UTC days; both are included.</p>
      )}
      {range.preset === 'custom' && (
        <div className="actions">
          <button type="submit" className="primary">
            Apply
          </button>
        </div>
      )}
      <FormError error={error} names={range.preset === 'custom' ? RANGE_FIELDS : ['interval']} />
      <p className="hint range-loading" aria-live="polite">
        {props.loaded.loading && !error ? 'Loading…' : ''}
      </p>
    </form>
  );
}

/** What a range's statistics show: the answered range, totals, chart and table, dimensions. */
function StatsBody(props: { stats: RangeStats; busy: boolean; children?: ReactNode }) {
  const s = props.stats;
  return (
    <div className="stats-body" aria-busy={props.busy || undefined}>
      <p className="shown-range" role="status">
        {formatRange(s.from, s.to)} (UTC), per {s.interval}
        {s.retention > 0 ? ` · your plan keeps ${s.retention} days of statistics` : ''}
      </p>
      {s.notice && (
        <p className="notice card" role="note">
          {s.notice}
        </p>
      )}
      <section className="totals" aria-label="Totals">
        <dl>
          <div>
            <dt>Clicks</dt>
            <dd>{formatCount(s.clicks)}</dd>
          </div>
          <div>
            <dt>Unique visitors</dt>
            <dd>{formatCount(s.uniqueClicks)}</dd>
          </div>
        </dl>
      </section>
      <ClicksChart
        series={s.series}
        // the page asks for day, week or month only (never hour): the API answers the same
        interval={s.interval as Interval}
        from={s.from}
        to={s.to}
        clicks={s.clicks}
      />
      {props.children}
      <Dimensions stats={s} />
    </div>
  );
}

/** The account's most visited links over the range, each opening its own statistics. */
function TopLinks(props: { links: AccountStats['topLinks'] }) {
  return (
    <Bars
      title="Top links"
      empty="No link was visited in this range."
      bars={props.links.map((l) => ({
        key: String(l.id),
        label: <Link to={`/stats/${l.id}`}>{l.shorturl}</Link>,
        value: l.clicks,
      }))}
    />
  );
}
