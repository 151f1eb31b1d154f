import { Module } from '@nestjs/common';

import { LinkCacheAccess } from '@app/links';

import { LinkCache } from './link-cache';

/**
 * What a short link resolves to, cached (LinkCache). The redirector reads it; every feature that
 * changes what a link answers (links, domains, pixels, splash pages, overlays, users) imports
 * this module and calls `LinkCache.forget*` after its change commits. It is also the
 * LinkCacheAccess of the link rules in @app/links (the destination policy).
 */
@Module({
  providers: [LinkCache, { provide: LinkCacheAccess, useExisting: LinkCache }],
  exports: [LinkCache, LinkCacheAccess],
})
export class LinkCacheModule {}
