import type { Schemas } from '../../api';

/** An event a webhook can subscribe to (the OpenAPI document's enum). */
export type WebhookEvent = Schemas['AddWebhookDto']['events'][number];

/**
 * Every event the API accepts, in the order the form offers them, with what each one is. The
 * `Record` over the schema's enum makes the type-check fail when the API adds or drops one.
 */
const DESCRIPTIONS: Record<WebhookEvent, string> = {
  'link.created': 'a link is created',
  'link.updated': 'a link is changed',
  'link.deleted': 'a link is deleted',
  'link.flagged': "a threat feed or the online lookup flags a link's target (it stops forwarding)",
  'link.clicked': 'a link is visited (batched, at most once a second)',
  'link.broken': "a link's target fails its health probes (the link serves its fallback URL)",
  'link.recovered': "a broken link's target answers again (the link serves its URL again)",
  'link.drifted': "a link's target now redirects to another site (registrable domain)",
  'qr.created': 'a QR code is created',
  'qr.scanned': 'a QR code is scanned (batched, at most once a second)',
  'member.added': 'a member joins the team',
  'member.removed': 'a member leaves the team',
};

export const EVENTS = Object.keys(DESCRIPTIONS) as WebhookEvent[];

export const describeEvent = (event: WebhookEvent): string => DESCRIPTIONS[event];
