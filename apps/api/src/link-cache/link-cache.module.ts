import { Module } from '@nestjs/common';

import { LinkCache } from './link-cache';

/**
 * What a short link resolves to, cached (LinkCache). The redirector reads it; every feature that
 * changes what a link answers (links, domains, pixels, splash pages, overlays, users) imports
 * this module and calls `LinkCache.forget*` after its change commits.
 */
@Module({ providers: [LinkCache], exports: [LinkCache] })
export class LinkCacheModule {}
