import { call, client, Schemas } from '../../api';
import { AssignItem } from './Assign';
import { flag, ResourcePage, ResourceSpec, text } from './Resource';

type Campaign = Schemas['CampaignView'];

/** The rotator's slug: the last segment of `<PUBLIC_URL>/r/<slug>` ('' without a rotator). */
const slugOf = (c: Campaign) =>
  typeof c.rotator === 'string' ? decodeURIComponent(c.rotator.split('/').pop() ?? '') : '';

const SLUG_HINT =
  'Gives the campaign a rotator: an address that sends each visitor to one of its links in turn. 3 to 50 of a-z, 0-9 and -; empty: no rotator.';

/**
 * Campaigns: GET /api/campaigns, POST /api/campaign/add, PUT …/update (name, rotator slug,
 * public list page), DELETE, and a link put into one (POST /api/campaign/:id/assign/:linkid).
 */
const CAMPAIGNS: ResourceSpec<Campaign> = {
  title: 'Campaigns',
  noun: 'campaign',
  intro: 'Group links into campaigns, each with a list page and, with a slug, a rotator.',
  empty: 'No campaigns yet: make one with "New campaign".',
  fields: [
    { name: 'name', label: 'Name', kind: 'text', maxLength: 100 },
    { name: 'slug', label: 'Rotator slug', kind: 'text', maxLength: 50, hint: SLUG_HINT },
    {
      name: 'public',
      label: 'Public list page',
      kind: 'checkbox',
      hint: 'Anyone with its address can see the list of its links.',
    },
  ],
  list: (query) =>
    call(client.GET('/api/campaigns', { params: { query } })).then(({ data }) => ({
      ...data,
      items: data.campaigns,
    })),
  name: (c) => c.name || c.domain || `Campaign ${c.id}`,
  details: (c) => (
    <dl>
      <dt>List page</dt>
      <dd>
        <a href={c.list}>{c.list}</a> {c.public ? '(public)' : '(private)'}
      </dd>
      <dt>Rotator</dt>
      <dd>{typeof c.rotator === 'string' ? <a href={c.rotator}>{c.rotator}</a> : 'None'}</dd>
    </dl>
  ),
  values: (c) => ({ name: c.name || c.domain, slug: slugOf(c), public: c.public }),
  create: (v) =>
    call(
      client.POST('/api/campaign/add', {
        body: {
          ...(text(v, 'name') ? { name: text(v, 'name') } : {}),
          slug: text(v, 'slug'),
          public: flag(v, 'public'),
        },
      }),
    ),
  update: (id, v) =>
    call(
      client.PUT('/api/campaign/{id}/update', {
        params: { path: { id } },
        body: { name: text(v, 'name'), slug: text(v, 'slug'), public: flag(v, 'public') },
      }),
    ),
  remove: (id) => call(client.DELETE('/api/campaign/{id}/delete', { params: { path: { id } } })),
  extra: (c) => (
    <AssignItem
      to={CAMPAIGNS.name(c)}
      types={['links']}
      assign={(_type, linkid) =>
        call(
          client.POST('/api/campaign/{campaignid}/assign/{linkid}', {
            params: { path: { campaignid: c.id, linkid } },
          }),
        )
      }
    />
  ),
};

/** Campaigns, in the links area (`/links/campaigns`). */
export function CampaignsPage() {
  return <ResourcePage spec={CAMPAIGNS} />;
}
