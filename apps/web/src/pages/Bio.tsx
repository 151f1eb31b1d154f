import { Coming } from './Coming';

/** The bio pages page (`/bio`). */
export function BioPage(props: { sub: string }) {
  void props.sub;
  return <Coming title="Bio pages" />;
}
