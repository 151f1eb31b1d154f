import { call, client, Schemas } from '../../api';
import { formatDate } from '../../ui';
import { ResourcePage, ResourceSpec, text, Values } from './Resource';

type Overlay = Schemas['OverlayView'];
type Body = Schemas['AddOverlayDto'];

const POSITIONS: Array<{ value: NonNullable<Body['position']>; label: string }> = [
  { value: 'bl', label: 'Bottom left' },
  { value: 'br', label: 'Bottom right' },
  { value: 'tl', label: 'Top left' },
  { value: 'tr', label: 'Top right' },
];

const TYPES: Array<{ value: Body['type']; label: string }> = [
  { value: 'message', label: 'Message' },
  { value: 'contact', label: 'Contact' },
];

/** Every field of the overlay, as the API names them. */
const body = (v: Values): Body => ({
  type: text(v, 'type') as Body['type'],
  name: text(v, 'name'),
  message: text(v, 'message'),
  button: text(v, 'button'),
  link: text(v, 'link'),
  bgcolor: text(v, 'bgcolor'),
  textcolor: text(v, 'textcolor'),
  buttoncolor: text(v, 'buttoncolor'),
  position: text(v, 'position') as Body['position'],
});

/**
 * CTA overlays: GET /api/overlay, GET /api/overlay/:id (every field, for editing),
 * POST /api/overlay/add, PUT …/update, DELETE.
 */
const OVERLAYS: ResourceSpec<Overlay> = {
  title: 'Overlays',
  noun: 'overlay',
  intro:
    'A call-to-action box shown over the target page of the links that use it: a message and a button.',
  empty: 'No overlays yet: make one with "New overlay".',
  fields: [
    { name: 'name', label: 'Name', kind: 'text', required: true, maxLength: 100 },
    {
      name: 'type',
      label: 'Type',
      kind: 'select',
      required: true,
      initial: 'message',
      options: TYPES,
      hint: 'Contact: the same box, meant for a contact call to action.',
    },
    { name: 'message', label: 'Message', kind: 'textarea', maxLength: 1000 },
    {
      name: 'button',
      label: 'Button text',
      kind: 'text',
      maxLength: 100,
      hint: 'Empty: no button.',
    },
    {
      name: 'link',
      label: 'Button link',
      kind: 'url',
      placeholder: 'https://example.com/page',
      hint: 'Opens in a new tab. Empty: no button.',
    },
    {
      name: 'position',
      label: 'Position',
      kind: 'select',
      initial: 'bl',
      options: POSITIONS,
    },
    { name: 'bgcolor', label: 'Background colour', kind: 'color', initial: '#ffffff' },
    { name: 'textcolor', label: 'Text colour', kind: 'color', initial: '#000000' },
    { name: 'buttoncolor', label: 'Button colour', kind: 'color', initial: '#0055ff' },
  ],
  list: (query) =>
    call(client.GET('/api/overlay', { params: { query } })).then(({ data }) => ({
      ...data,
      items: data.cta,
    })),
  name: (o) => o.name,
  details: (o) => (
    <dl>
      <dt>Type</dt>
      <dd>{TYPES.find((t) => t.value === o.type)?.label ?? o.type}</dd>
      <dt>Created</dt>
      <dd>{formatDate(o.date)}</dd>
    </dl>
  ),
  values: async (o) => {
    const { data } = await call(
      client.GET('/api/overlay/{id}', { params: { path: { id: o.id } } }),
    );
    return {
      name: data.name,
      type: data.type,
      message: data.message,
      button: data.button,
      link: data.link,
      position: data.position,
      bgcolor: data.bgcolor,
      textcolor: data.textcolor,
      buttoncolor: data.buttoncolor,
    };
  },
  create: (v) => call(client.POST('/api/overlay/add', { body: body(v) })),
  update: (id, v) =>
    call(client.PUT('/api/overlay/{id}/update', { params: { path: { id } }, body: body(v) })),
  remove: (id) => call(client.DELETE('/api/overlay/{id}/delete', { params: { path: { id } } })),
};

/** CTA overlays, in the links area (`/links/overlays`). */
export function OverlaysPage() {
  return <ResourcePage spec={OVERLAYS} />;
}
