import { Coming } from '../Coming';

/** Overlays, in the links area (`/links/…`). */
export function OverlaysPage() {
  return <Coming title="Overlays" />;
}
