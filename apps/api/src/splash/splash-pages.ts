import { SplashPage } from '@app/database';

import { LinkPageKind } from '../link-pages/link-page-kind';
import { AddSplashDto } from './dto/add-splash.dto';
import { splashDetailsView, SplashDetailsView, splashView, SplashView } from './dto/splash.view';

/** Custom splash pages, as the link page kind LinkPages serves. */
export const SPLASH_PAGES: LinkPageKind<SplashPage, AddSplashDto, SplashView, SplashDetailsView> = {
  type: 'splash',
  entity: SplashPage,
  label: 'Splash page',
  listKey: 'splash',
  columns: {
    name: 'name',
    title: 'title',
    message: 'message',
    image: 'imageUrl',
    link: 'link',
    countdown: 'countdown',
    button: 'buttonText',
  },
  urlFields: ['image', 'link'],
  view: splashView,
  detailsView: splashDetailsView,
};
