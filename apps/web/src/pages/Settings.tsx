import { Coming } from './Coming';

/** The account settings page (`/settings`). */
export function SettingsPage(props: { sub: string }) {
  void props.sub;
  return <Coming title="Settings" />;
}
