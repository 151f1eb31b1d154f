import { Coming } from '../Coming';

/** Splash pages, in the links area (`/links/…`). */
export function SplashPage() {
  return <Coming title="Splash pages" />;
}
