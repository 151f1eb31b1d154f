import { ApiProperty } from '@nestjs/swagger';

import { formatDateTime } from '@app/common';
import { Overlay, OverlayType } from '@app/database';

import { OVERLAY_DOC, OVERLAY_POSITIONS } from './overlay-fields';

/** The documented CTA overlay list entry. */
export class OverlayView {
  @ApiProperty({ example: 1 })
  id: number;

  @ApiProperty({ enum: ['message', 'contact'] })
  type: OverlayType;

  @ApiProperty({ example: 'Newsletter sign-up' })
  name: string;

  @ApiProperty({ example: '2024-11-21 10:00:00', description: 'Creation date-time (UTC)' })
  date: string;
}

/** `GET /api/overlay/:id`: the list entry and everything the overlay box shows. */
export class OverlayDetailsView extends OverlayView {
  @ApiProperty({ example: 'Get our weekly digest', description: OVERLAY_DOC.message })
  message: string;

  @ApiProperty({ example: 'Subscribe', description: OVERLAY_DOC.button })
  button: string;

  @ApiProperty({ example: 'https://www.example.com/subscribe', description: OVERLAY_DOC.link })
  link: string;

  @ApiProperty({ example: '#ffffff', description: OVERLAY_DOC.bgcolor })
  bgcolor: string;

  @ApiProperty({ example: '#000000', description: OVERLAY_DOC.textcolor })
  textcolor: string;

  @ApiProperty({ example: '#0055ff', description: OVERLAY_DOC.buttoncolor })
  buttoncolor: string;

  @ApiProperty({ enum: OVERLAY_POSITIONS, description: OVERLAY_DOC.position })
  position: string;
}

/** `POST /api/overlay/add`: `{error, id}`. */
export class OverlayCreatedView {
  @ApiProperty({ example: 1 })
  id: number;
}

/** The view of a row. */
export function overlayView(o: Overlay): OverlayView {
  return { id: o.id, type: o.type, name: o.name, date: formatDateTime(o.createdAt) as string };
}

export function overlayDetailsView(o: Overlay): OverlayDetailsView {
  return {
    ...overlayView(o),
    message: o.message,
    button: o.buttonText,
    link: o.buttonLink,
    bgcolor: o.bgColor,
    textcolor: o.textColor,
    buttoncolor: o.buttonColor,
    position: o.position,
  };
}
