import { LinkPagesController } from '../link-pages/link-page-routes';
import { AddSplashDto } from './dto/add-splash.dto';
import { SplashCreatedView, SplashDetailsView, SplashView } from './dto/splash.view';
import { UpdateSplashDto } from './dto/update-splash.dto';
import { SPLASH_PAGES } from './splash-pages';

const PAGE_DOC =
  'A link of type splash first shows this page: the title, the image (linking to `link`), the message, ' +
  '`link` itself, a button with the text `button` that forwards to the link’s target, and a countdown that ' +
  'forwards by itself after `countdown` seconds (none at 0).';

/** The custom splash page routes, /api/splash… (LinkPagesController). */
export class SplashController extends LinkPagesController({
  kind: SPLASH_PAGES,
  tag: 'custom splash',
  noun: 'custom splash page',
  getSummary: 'One custom splash page with everything it shows: `{error, data}`',
  pageDoc: PAGE_DOC,
  bodies: { add: AddSplashDto, update: UpdateSplashDto },
  views: { list: SplashView, details: SplashDetailsView, created: SplashCreatedView },
}) {}
