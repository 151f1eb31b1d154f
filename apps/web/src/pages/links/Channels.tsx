import { useState } from 'react';

import { call, client, Schemas } from '../../api';
import { LoadState, Pager, useLoad } from '../../ui';
import { AssignItem } from './Assign';
import { flag, ResourcePage, ResourceSpec, text, Values } from './Resource';

type Channel = Schemas['ChannelView'];

const TYPE_NAME: Record<Schemas['ChannelItemView']['type'], string> = {
  links: 'Link',
  bio: 'Bio page',
  qr: 'QR code',
};

const body = (v: Values) => ({
  name: text(v, 'name'),
  description: text(v, 'description'),
  color: text(v, 'color'),
  starred: flag(v, 'starred'),
});

/**
 * A channel's items (GET /api/channel/:id, a page at a time) and "Assign an item" (a link, bio
 * page or QR code: POST /api/channel/:channelid/assign/:type/:itemid).
 */
function ChannelItems(props: { channel: Channel }) {
  const [page, setPage] = useState(1);
  const [shown, setShown] = useState(false);
  const id = props.channel.id;
  const items = useLoad(
    () =>
      shown
        ? call(
            client.GET('/api/channel/{id}', {
              params: { path: { id }, query: { page, limit: 10 } },
            }),
          ).then((r) => r.data)
        : Promise.resolve(undefined),
    [id, page, shown],
  );
  const data = items.data;
  return (
    <>
      <div className="res-extra">
        <button type="button" aria-expanded={shown} onClick={() => setShown(!shown)}>
          {shown ? 'Hide items' : 'Show items'}
          <span className="visually-hidden"> of {props.channel.name}</span>
        </button>
        {shown && (
          <section aria-label={`Items of ${props.channel.name}`}>
            <LoadState loaded={items} what="the items" />
            {data && data.result === 0 && <p className="hint">No items yet.</p>}
            {data && data.result > 0 && (
              <ul className="res-items">
                {data.items.map((item) => (
                  <li key={`${item.type}-${item.id}`}>
                    {TYPE_NAME[item.type]}: <a href={item.link}>{item.title || item.link}</a>{' '}
                    <span className="hint">({item.date})</span>
                  </li>
                ))}
              </ul>
            )}
            {data && <Pager page={data.currentpage} maxpage={data.maxpage} onPage={setPage} />}
          </section>
        )}
      </div>
      <AssignItem
        to={props.channel.name}
        types={['links', 'bio', 'qr']}
        assign={(type, itemid) =>
          call(
            client.POST('/api/channel/{channelid}/assign/{type}/{itemid}', {
              params: { path: { channelid: id, type, itemid } },
            }),
          )
        }
        onAssigned={() => {
          if (shown) void items.reload();
          else setShown(true);
        }}
      />
    </>
  );
}

/**
 * Channels: GET /api/channels, POST /api/channel/add, PUT …/update (name, description, colour,
 * starred), DELETE (its items are unassigned), and their items.
 */
const CHANNELS: ResourceSpec<Channel> = {
  title: 'Channels',
  noun: 'channel',
  intro: 'Channels gather links, bio pages and QR codes, for instance by where you share them.',
  empty: 'No channels yet: make one with "New channel".',
  fields: [
    { name: 'name', label: 'Name', kind: 'text', required: true, maxLength: 100 },
    { name: 'description', label: 'Description', kind: 'textarea', maxLength: 500 },
    { name: 'color', label: 'Badge colour', kind: 'color', initial: '#000000' },
    { name: 'starred', label: 'Starred', kind: 'checkbox' },
  ],
  list: (query) =>
    call(client.GET('/api/channels', { params: { query } })).then(({ data }) => ({
      ...data,
      items: data.channels,
    })),
  name: (c) => c.name,
  details: (c) => (
    <dl>
      <dt>Colour</dt>
      <dd>
        {/* the badge colour is the user's: a dynamic value */}
        <span className="swatch" style={{ background: c.color }} aria-hidden="true" />
        {c.color}
      </dd>
      <dt>Starred</dt>
      <dd>{c.starred ? 'Yes' : 'No'}</dd>
      {c.description && (
        <>
          <dt>Description</dt>
          <dd>{c.description}</dd>
        </>
      )}
    </dl>
  ),
  values: (c) => ({
    name: c.name,
    description: c.description,
    color: c.color,
    starred: c.starred,
  }),
  create: (v) => call(client.POST('/api/channel/add', { body: body(v) })),
  update: (id, v) =>
    call(client.PUT('/api/channel/{id}/update', { params: { path: { id } }, body: body(v) })),
  remove: (id) => call(client.DELETE('/api/channel/{id}/delete', { params: { path: { id } } })),
  extra: (c) => <ChannelItems channel={c} />,
};

/** Channels, in the links area (`/links/channels`). */
export function ChannelsPage() {
  return <ResourcePage spec={CHANNELS} />;
}
