import { Coming } from './Coming';

/** The admin area (`/admin`, admins only). */
export function AdminPage(props: { sub: string }) {
  void props.sub;
  return <Coming title="Admin" />;
}
