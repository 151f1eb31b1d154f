import { Coming } from './Coming';

/** The import page (`/import`). */
export function ImportPage(props: { sub: string }) {
  void props.sub;
  return <Coming title="Import" />;
}
