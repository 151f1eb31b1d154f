import { call, client, Schemas } from '../../api';
import { formatDate } from '../../ui';
import { ResourcePage, ResourceSpec, text, Values } from './Resource';

type Splash = Schemas['SplashView'];
type Body = Schemas['AddSplashDto'];

/** The longest countdown the API accepts (seconds). */
const MAX_COUNTDOWN = 600;

/**
 * Every field of the page, as the API names them. A countdown that is not a whole number is sent
 * as typed, so that the API's message names it.
 */
const body = (v: Values): Body => {
  const countdown = text(v, 'countdown');
  return {
    name: text(v, 'name'),
    title: text(v, 'title'),
    message: text(v, 'message'),
    image: text(v, 'image'),
    link: text(v, 'link'),
    button: text(v, 'button'),
    ...(countdown === ''
      ? {}
      : {
          countdown: /^-?\d+$/.test(countdown)
            ? Number(countdown)
            : (countdown as unknown as number),
        }),
  };
};

/**
 * Custom splash pages: GET /api/splash, GET /api/splash/:id (every field, for editing),
 * POST /api/splash/add, PUT …/update, DELETE.
 */
const SPLASH: ResourceSpec<Splash> = {
  title: 'Splash pages',
  noun: 'splash page',
  intro:
    'A page shown before the target of the links that use it, forwarding after a countdown or a click.',
  empty: 'No splash pages yet: make one with "New splash page".',
  fields: [
    { name: 'name', label: 'Name', kind: 'text', required: true, maxLength: 100 },
    { name: 'title', label: 'Title', kind: 'text', maxLength: 200, hint: 'Empty: no heading.' },
    { name: 'message', label: 'Message', kind: 'textarea', maxLength: 2000 },
    {
      name: 'image',
      label: 'Image URL',
      kind: 'url',
      placeholder: 'https://example.com/image.jpg',
      hint: 'Empty: no image.',
    },
    {
      name: 'link',
      label: 'Link',
      kind: 'url',
      placeholder: 'https://example.com/page',
      hint: 'Shown with the image, which links to it too. Empty: none.',
    },
    {
      name: 'countdown',
      label: 'Countdown (seconds)',
      kind: 'number',
      min: 0,
      max: MAX_COUNTDOWN,
      initial: '5',
      hint: `0 to ${MAX_COUNTDOWN}; 0 forwards only when the visitor presses the button.`,
    },
    {
      name: 'button',
      label: 'Button text',
      kind: 'text',
      maxLength: 100,
      initial: 'Continue',
    },
  ],
  list: (query) =>
    call(client.GET('/api/splash', { params: { query } })).then(({ data }) => ({
      ...data,
      items: data.splash,
    })),
  name: (s) => s.name,
  details: (s) => (
    <dl>
      <dt>Created</dt>
      <dd>{formatDate(s.date)}</dd>
    </dl>
  ),
  values: async (s) => {
    const { data } = await call(client.GET('/api/splash/{id}', { params: { path: { id: s.id } } }));
    return {
      name: data.name,
      title: data.title,
      message: data.message,
      image: data.image,
      link: data.link,
      countdown: String(data.countdown),
      button: data.button,
    };
  },
  create: (v) => call(client.POST('/api/splash/add', { body: body(v) })),
  update: (id, v) =>
    call(client.PUT('/api/splash/{id}/update', { params: { path: { id } }, body: body(v) })),
  remove: (id) => call(client.DELETE('/api/splash/{id}/delete', { params: { path: { id } } })),
};

/** Custom splash pages, in the links area (`/links/splash`). */
export function SplashPage() {
  return <ResourcePage spec={SPLASH} />;
}
