import { LinkPagesController } from '../link-pages/link-page-routes';
import { AddOverlayDto } from './dto/add-overlay.dto';
import { OverlayCreatedView, OverlayDetailsView, OverlayView } from './dto/overlay.view';
import { UpdateOverlayDto } from './dto/update-overlay.dto';
import { OVERLAY_PAGES } from './overlay-pages';

const PAGE_DOC =
  'A link of type overlay shows its target in a full-page frame with this box in a corner: the message, ' +
  'and the button (when both `button` and `link` are set) opening `link` in a new tab, in the given colours.';

/** The CTA overlay routes, /api/overlay… (LinkPagesController). */
export class OverlaysController extends LinkPagesController({
  kind: OVERLAY_PAGES,
  tag: 'CTA overlays',
  noun: 'CTA overlay',
  getSummary: 'One CTA overlay with everything its box shows: `{error, data}`',
  pageDoc: PAGE_DOC,
  bodies: { add: AddOverlayDto, update: UpdateOverlayDto },
  views: { list: OverlayView, details: OverlayDetailsView, created: OverlayCreatedView },
}) {}
