import { Coming } from './Coming';

/** The statistics page (`/stats`, a link's at `/stats/<id>`). */
export function StatsPage(props: { sub: string }) {
  void props.sub;
  return <Coming title="Statistics" />;
}
