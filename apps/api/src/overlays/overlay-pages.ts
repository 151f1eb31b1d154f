import { Overlay } from '@app/database';

import { LinkPageKind } from '../link-pages/link-page-kind';
import { AddOverlayDto } from './dto/add-overlay.dto';
import {
  overlayDetailsView,
  OverlayDetailsView,
  overlayView,
  OverlayView,
} from './dto/overlay.view';

/** CTA overlays, as the link page kind LinkPages serves. */
export const OVERLAY_PAGES: LinkPageKind<Overlay, AddOverlayDto, OverlayView, OverlayDetailsView> =
  {
    type: 'overlay',
    entity: Overlay,
    label: 'Overlay',
    listKey: 'cta',
    columns: {
      type: 'type',
      name: 'name',
      message: 'message',
      button: 'buttonText',
      link: 'buttonLink',
      bgcolor: 'bgColor',
      textcolor: 'textColor',
      buttoncolor: 'buttonColor',
      position: 'position',
    },
    urlFields: ['link'],
    view: overlayView,
    detailsView: overlayDetailsView,
  };
