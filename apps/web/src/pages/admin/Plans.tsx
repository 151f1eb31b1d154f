import { PageHead } from '../../ui';
import { limitText, Plan } from './common';

/** The feature switches of a plan's `limits` by the api's names, with what they govern. */
const FLAGS: Array<[keyof Plan['limits'], string]> = [
  ['custom', ''],
  ['multiple', 'bulk link creation'],
  ['alias', 'custom aliases'],
  ['device', 'device targeting'],
  ['geo', 'geo targeting'],
  ['bundle', 'campaigns'],
  ['parameters', 'URL parameters'],
  ['export', 'exports'],
  ['api', 'API access'],
];
const COUNTED: Array<[keyof Plan['limits'], string]> = [
  ['team', 'team members'],
  ['splash', 'splash pages'],
  ['overlay', 'CTA overlays'],
  ['pixels', 'pixels'],
  ['domain', 'branded domains'],
];

/** `geo (geo targeting)`. */
const featureName = (key: string, about: string) => (
  <>
    <code>{key}</code>
    {about && ` (${about})`}
  </>
);

const money = (v: number | null) => (v === null ? 'Not sold' : v.toFixed(2));

/**
 * The plans (`/admin/plans`, `GET /api/plans`), read-only: the api has no route to create or
 * change a plan (operators edit the `plans` table), only one to move a user to a plan, on the
 * user's page.
 */
export function PlansSection(props: { plans: Plan[] }) {
  return (
    <>
      <PageHead title="Plans" />
      <p className="hint">
        Plans are read-only here: the API has no route to create or edit one. Move a user to a plan
        from the user&apos;s page.
      </p>
      {props.plans.length === 0 && <p>No plans.</p>}
      <div className="admin-plans">
        {props.plans.map((p) => (
          <PlanCard key={p.id} plan={p} />
        ))}
      </div>
    </>
  );
}

function PlanCard(props: { plan: Plan }) {
  const { plan } = props;
  const l = plan.limits;
  const flag = (k: keyof Plan['limits']) => (l[k] as { enabled: '0' | '1' }).enabled === '1';
  const count = (k: keyof Plan['limits']) => (l[k] as { count: string }).count;
  const headingId = `admin-plan-${plan.id}`;
  return (
    <section className="card admin-plan" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {plan.name} <span className="admin-tag">{plan.free ? 'Free' : 'Paid'}</span>
      </h2>
      <dl className="admin-facts">
        <dt>ID</dt>
        <dd>{plan.id}</dd>
        {plan.prices && (
          <>
            <dt>Monthly</dt>
            <dd>{money(plan.prices.monthly)}</dd>
            <dt>Yearly</dt>
            <dd>{money(plan.prices.yearly)}</dd>
            <dt>Lifetime</dt>
            <dd>{money(plan.prices.lifetime)}</dd>
          </>
        )}
        <dt>Links</dt>
        <dd>{limitText(l.links)}</dd>
        <dt>Clicks a month</dt>
        <dd>{limitText(l.clicks)}</dd>
        <dt>Statistics kept</dt>
        <dd>{l.retention === 0 ? 'Forever' : `${l.retention} days`}</dd>
      </dl>
      <h3>Features</h3>
      <ul className="admin-features">
        {FLAGS.map(([k, name]) => (
          <li key={k}>
            {featureName(k, name)}: <strong>{flag(k) ? 'on' : 'off'}</strong>
          </li>
        ))}
        {COUNTED.map(([k, name]) => (
          <li key={k}>
            {featureName(k, name)}:{' '}
            <strong>{flag(k) ? `on, ${limitText(count(k), 'no limit')}` : 'off'}</strong>
          </li>
        ))}
      </ul>
    </section>
  );
}
