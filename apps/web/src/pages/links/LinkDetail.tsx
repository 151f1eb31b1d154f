import { Coming } from '../Coming';

/** One link (`/links/<id>`): its details, every option to edit, delete. */
export function LinkDetailPage(props: { id: number }) {
  void props.id;
  return <Coming title="Link" />;
}
