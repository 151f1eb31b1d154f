import { Coming } from './Coming';

/** The branded domains page (`/domains`). */
export function DomainsPage(props: { sub: string }) {
  void props.sub;
  return <Coming title="Domains" />;
}
