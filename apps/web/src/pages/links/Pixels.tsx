import { call, client, Schemas } from '../../api';
import { formatDate } from '../../ui';
import { ResourcePage, ResourceSpec, text } from './Resource';

type Pixel = Schemas['PixelView'];
type PixelType = Schemas['AddPixelDto']['type'];

/** The pixel types the API accepts (the compiler checks each against the OpenAPI document). */
const TYPES: PixelType[] = [
  'vendor01pixel',
  'vendor02pixel',
  'vendor03pixel',
  'vendor04pixel',
  'vendor05pixel',
  'vendor06pixel',
  'vendor07pixel',
  'vendor08pixel',
  'vendor09',
  'vendor10',
  'vendor11',
  'vendor12',
  'vendor13',
];

const TAG_HINT = 'The pixel id or tag code: letters, digits and _ . : - only.';

/** Tracking pixels: GET /api/pixels, POST /api/pixel/add, PUT …/update (name, tag), DELETE. */
const PIXELS: ResourceSpec<Pixel> = {
  title: 'Pixels',
  noun: 'pixel',
  intro: 'Tracking pixels fire when someone opens a link that uses them.',
  empty: 'No pixels yet: add one with "New pixel".',
  fields: [
    {
      name: 'type',
      label: 'Type',
      kind: 'select',
      required: true,
      createOnly: true,
      initial: TYPES[0],
      options: TYPES.map((t) => ({ value: t, label: t })),
      hint: 'It cannot change later.',
    },
    { name: 'name', label: 'Name', kind: 'text', required: true, maxLength: 100 },
    { name: 'tag', label: 'Tag', kind: 'text', required: true, maxLength: 255, hint: TAG_HINT },
  ],
  list: (query) =>
    call(client.GET('/api/pixels', { params: { query } })).then(({ data }) => ({
      ...data,
      items: data.pixels,
    })),
  name: (p) => p.name,
  details: (p) => (
    <dl>
      <dt>Type</dt>
      <dd>{p.type}</dd>
      <dt>Tag</dt>
      <dd>{p.tag}</dd>
      <dt>Added</dt>
      <dd>{formatDate(p.date)}</dd>
    </dl>
  ),
  values: (p) => ({ name: p.name, tag: p.tag }),
  create: (v) =>
    call(
      client.POST('/api/pixel/add', {
        body: { type: text(v, 'type') as PixelType, name: text(v, 'name'), tag: text(v, 'tag') },
      }),
    ),
  update: (id, v) =>
    call(
      client.PUT('/api/pixel/{id}/update', {
        params: { path: { id } },
        body: { name: text(v, 'name'), tag: text(v, 'tag') },
      }),
    ),
  remove: (id) => call(client.DELETE('/api/pixel/{id}/delete', { params: { path: { id } } })),
};

/** Tracking pixels, in the links area (`/links/pixels`). */
export function PixelsPage() {
  return <ResourcePage spec={PIXELS} />;
}
