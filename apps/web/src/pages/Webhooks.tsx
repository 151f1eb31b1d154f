import './webhooks.css';

import { Deliveries } from './webhooks/Deliveries';
import { WebhookList } from './webhooks/WebhookList';

/** The webhooks page (`/webhooks`, a webhook's deliveries at `/webhooks/<id>`). */
export function WebhooksPage(props: { sub: string }) {
  const match = /^\/(\d+)\/?$/.exec(props.sub);
  if (match) return <Deliveries key={match[1]} id={Number(match[1])} />;
  if (props.sub && props.sub !== '/')
    return (
      <>
        <h1>Page not found</h1>
        <p>There is nothing at this address in Webhooks.</p>
      </>
    );
  return <WebhookList />;
}
