import { useId } from 'react';

import { ApiError, Schemas } from '../../api';
import { fieldMatches } from '../../ui';

/** A scope of a named key, as the API's schema names them. */
export type Scope = Schemas['AddKeyDto']['scopes'][number];

type AreaOf<S> = S extends `${infer A}:${string}` ? A : never;
/** An area of the access model (`links`, `team`, …), from the schema's scopes. */
type Area = AreaOf<Scope>;

/**
 * Every area a named key's scope can name, with what it covers (docs/teams.md "Roles"): typed by
 * the schema, so an area the API adds or drops is a type error here.
 */
const AREAS: Record<Area, string> = {
  links: 'links',
  qr: 'QR codes',
  bio: 'bio pages',
  pages: 'overlays and splash pages',
  campaigns: 'campaigns',
  channels: 'channels',
  pixels: 'pixels',
  domains: 'branded domains',
  webhooks: 'webhooks',
  stats: 'statistics',
  import: 'imports',
  team: 'members',
  keys: 'named keys',
  audit: 'the audit log',
};

/** `true` for each scope the API accepts: a missing or unknown one is a type error. */
const SCOPE_SET: Record<Scope, true> = {
  '*': true,
  'links:read': true,
  'links:write': true,
  'qr:read': true,
  'qr:write': true,
  'bio:read': true,
  'bio:write': true,
  'pages:read': true,
  'pages:write': true,
  'campaigns:read': true,
  'campaigns:write': true,
  'channels:read': true,
  'channels:write': true,
  'pixels:read': true,
  'pixels:write': true,
  'domains:read': true,
  'domains:write': true,
  'webhooks:read': true,
  'webhooks:write': true,
  'stats:read': true,
  'stats:write': true,
  'import:read': true,
  'import:write': true,
  'team:read': true,
  'team:write': true,
  'keys:read': true,
  'keys:write': true,
  'audit:read': true,
  'audit:write': true,
};

/** The scopes in the API's order (`*` first, then each area's read and write). */
export const SCOPES = Object.keys(SCOPE_SET) as Scope[];

/** Keeps `chosen` in the API's order. */
export function ordered(chosen: Iterable<Scope>): Scope[] {
  const set = new Set(chosen);
  return SCOPES.filter((s) => set.has(s));
}

/**
 * The scopes as checkboxes, each labelled with the API's name for it (`links:write`), grouped by
 * area; the API's error naming `scopes` under them.
 */
export function ScopePicker(props: {
  value: Scope[];
  onChange: (value: Scope[]) => void;
  error: ApiError | null;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  const mine = props.error !== null && fieldMatches(props.error.field, ['scopes']);
  const toggle = (scope: Scope, on: boolean) => {
    const next = new Set(props.value);
    if (on) next.add(scope);
    else next.delete(scope);
    props.onChange(ordered(next));
  };
  const box = (scope: Scope) => (
    <label className="scope" key={scope}>
      <input
        type="checkbox"
        checked={props.value.includes(scope)}
        onChange={(e) => toggle(scope, e.target.checked)}
      />
      {scope}
    </label>
  );
  return (
    <fieldset className="scopes" aria-describedby={mine ? errorId : `${id}-hint`}>
      <legend>Scopes</legend>
      <p id={`${id}-hint`} className="hint">
        <code>write</code> includes <code>read</code>; <code>*</code> is everything your role in
        this workspace allows (and the only scope for account routes).
      </p>
      <div className="scope-all">{box('*')}</div>
      <ul className="scope-grid">
        {(Object.entries(AREAS) as Array<[Area, string]>).map(([area, what]) => (
          <li key={area}>
            <span className="scope-area">{what}</span>
            {box(`${area}:read`)}
            {box(`${area}:write`)}
          </li>
        ))}
      </ul>
      {mine && (
        <p id={errorId} className="error" role="alert">
          {props.error!.message}
        </p>
      )}
    </fieldset>
  );
}

/** A `datetime-local` value (local time) → ISO 8601 with its offset for the API; '' → null. */
export function fromLocalInput(value: string): string | null {
  if (!value) return null;
  const date = new Date(value);
  // an unreadable value goes as typed: the API names `expires` in its answer
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}
