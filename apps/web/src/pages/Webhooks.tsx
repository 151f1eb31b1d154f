import { Coming } from './Coming';

/** The webhooks page (`/webhooks`, a webhook's deliveries at `/webhooks/<id>`). */
export function WebhooksPage(props: { sub: string }) {
  void props.sub;
  return <Coming title="Webhooks" />;
}
