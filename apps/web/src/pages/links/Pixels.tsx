import { Coming } from '../Coming';

/** Pixels, in the links area (`/links/…`). */
export function PixelsPage() {
  return <Coming title="Pixels" />;
}
