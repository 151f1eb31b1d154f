import { ApiExtraModels, ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';

import { formatDateTime, PublicUrls } from '@app/common';
import { QrCode } from '@app/database';

import { statisticsView } from '../../stats/statistics.view';
import { qrVariants } from './create-qr.dto';

/** A QR code in lists (`qrs`). */
export class QrItemView {
  @ApiProperty({ example: 1 })
  id: number;

  @ApiProperty({
    description: 'The short link the image encodes: <PUBLIC_URL>/q/<code>',
    example: 'https://short.example/q/Ab3dE9xZ',
  })
  link: string;

  @ApiProperty({ description: 'Scans counted so far (clicks of the short link)', example: 0 })
  scans: number;

  @ApiProperty({ example: 'Menu card' })
  name: string;

  @ApiProperty({ example: '2024-11-21 10:00:00' })
  date: string;
}

/** The fields of a QR code in full but its `type` and `data` (see QrDetailsView). */
export class QrDetailsFields extends QrItemView {
  @ApiProperty({ example: 'rgb(255,255,255)' })
  background: string;

  @ApiProperty({ example: 'rgb(0,0,0)' })
  foreground: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Logo URL or asset file name; null without one',
  })
  logo: string | null;

  @ApiProperty({
    description: '<PUBLIC_URL>/q/<code>.png (also .svg), served once status is ready (404 before)',
  })
  image: string;

  @ApiProperty({
    enum: ['pending', 'ready', 'failed'],
    description: 'Rendering state of the image',
  })
  status: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the last rendering failed (status failed); otherwise null',
  })
  reason: string | null;
}

/** One QR code in full (`details`): documented as one model per type (QR_DETAILS_VARIANTS). */
export type QrDetailsView = QrDetailsFields & { type: string; data: unknown };

/** `details` as documented: `oneOf` QrDetails<Type>View, by `type`. */
export const QR_DETAILS_VARIANTS = qrVariants(
  QrDetailsFields,
  (type) => `QrDetails${type}View`,
  'The content in its canonical form (the shapes of qr/add)',
);

export class QrStatisticsView extends statisticsView({
  topCountriesLimit: true,
  socialNetworks: true,
}) {}

/** `GET /api/qr/:id` body (besides `error`). */
@ApiExtraModels(...QR_DETAILS_VARIANTS.models)
export class QrReadView {
  @ApiProperty(QR_DETAILS_VARIANTS.schema as ApiPropertyOptions)
  details: QrDetailsView;

  @ApiProperty({ type: QrStatisticsView })
  data: QrStatisticsView;
}

/** `POST /api/qr/add` body (besides `error`). */
export class QrCreatedView {
  @ApiProperty({ example: 1 })
  id: number;

  @ApiProperty({ example: 'https://short.example/q/Ab3dE9xZ' })
  link: string;
}

/** The list item of a QR row (`code`: its short link's alias). */
export function qrItemView(qr: QrCode, code: string, scans: number, urls: PublicUrls): QrItemView {
  return {
    id: qr.id,
    link: urls.qr(code),
    scans,
    name: qr.name,
    date: formatDateTime(qr.createdAt) as string,
  };
}

/** `details` of `GET /api/qr/:id`. */
export function qrDetailsView(
  qr: QrCode,
  code: string,
  scans: number,
  urls: PublicUrls,
): QrDetailsView {
  return {
    ...qrItemView(qr, code, scans, urls),
    type: qr.type,
    data: qr.data,
    background: qr.background,
    foreground: qr.foreground,
    logo: qr.logo,
    image: urls.qrImage(code),
    status: qr.status,
    reason: qr.status === 'failed' ? qr.error : null,
  };
}
