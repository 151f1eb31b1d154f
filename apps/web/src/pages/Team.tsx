import { Coming } from './Coming';

/** The team page (`/team`): members and named keys. */
export function TeamPage(props: { sub: string }) {
  void props.sub;
  return <Coming title="Team" />;
}
