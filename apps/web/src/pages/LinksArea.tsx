import { ReactNode } from 'react';

import { SubNav } from '../ui';
import { LinksPage } from './Links';
import { CampaignsPage } from './links/Campaigns';
import { ChannelsPage } from './links/Channels';
import { LinkDetailPage } from './links/LinkDetail';
import { OverlaysPage } from './links/Overlays';
import { PixelsPage } from './links/Pixels';
import { SplashPage } from './links/Splash';

/**
 * The links area (`/links…`): the links themselves and what links use (campaigns, channels,
 * pixels, overlays, splash pages), each a section of the sub-navigation; `/links/<id>` is one link.
 */
const SECTIONS: Array<{ to: string; name: string; page: () => ReactNode }> = [
  { to: '/links', name: 'All links', page: () => <LinksPage /> },
  { to: '/links/campaigns', name: 'Campaigns', page: () => <CampaignsPage /> },
  { to: '/links/channels', name: 'Channels', page: () => <ChannelsPage /> },
  { to: '/links/pixels', name: 'Pixels', page: () => <PixelsPage /> },
  { to: '/links/overlays', name: 'Overlays', page: () => <OverlaysPage /> },
  { to: '/links/splash', name: 'Splash pages', page: () => <SplashPage /> },
];

export function LinksArea(props: { sub: string }) {
  const one = /^\/(\d+)$/.exec(props.sub);
  if (one) return <LinkDetailPage id={Number(one[1])} />;
  const path = `/links${props.sub}`;
  const section = SECTIONS.find((s) => s.to === path);
  return (
    <>
      <SubNav label="Links area" items={SECTIONS} current={path} />
      {section ? (
        section.page()
      ) : (
        <>
          <h1>Page not found</h1>
          <p role="alert">Nothing lives at this address.</p>
        </>
      )}
    </>
  );
}
