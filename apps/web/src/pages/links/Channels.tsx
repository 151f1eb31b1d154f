import { Coming } from '../Coming';

/** Channels, in the links area (`/links/…`). */
export function ChannelsPage() {
  return <Coming title="Channels" />;
}
