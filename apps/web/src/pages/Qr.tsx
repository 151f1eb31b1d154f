import { Coming } from './Coming';

/** The QR codes page (`/qr`). */
export function QrPage(props: { sub: string }) {
  void props.sub;
  return <Coming title="QR codes" />;
}
