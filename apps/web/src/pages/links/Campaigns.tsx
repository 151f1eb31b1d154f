import { Coming } from '../Coming';

/** Campaigns, in the links area (`/links/…`). */
export function CampaignsPage() {
  return <Coming title="Campaigns" />;
}
