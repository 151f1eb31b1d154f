import { IncomingMessage, ServerResponse } from 'node:http';

import { Injectable } from '@nestjs/common';

import { BioContent, Blocklist, CachedLink, ResolvedHost } from '@app/links';

import { Page } from '../public/pages';
import { PublicResponder, STATIC } from '../public/responder';
import { SOCIAL_NETWORKS } from './bio-fields';
import { bioPage } from './bio-page';

/** `?go=<n>` (a button) or `?go=<network>`. */
const GO_PARAM = /(?:^|&)go=([a-z0-9]{1,20})(?:&|$)/;

/**
 * The public side of bio pages, at `/<alias>` on the page's own host (the redirector resolves the
 * code through LinkCache and hands codes of kind `bio` here):
 * - `GET /<alias>`: the page (rendered once per cached entry), counted as a visit;
 * - `GET /<alias>?go=<n>` / `?go=<network>`: a 302 to that button's or social link's URL, counted as
 *   a visit of the page too; a button that is not on the page (private link, changed list) is a
 *   404, a blocked destination the 451 page.
 * Buttons and social links whose destination is blocked are left out of the page; the page is
 * rendered again when the blocklist changes (Blocklist.generation), so they go within moments.
 */
@Injectable()
export class BioPublicHandler {
  /**
   * Rendered pages, per cached entry and blocklist generation: a change of the page replaces the
   * entry, a change of the blocklist the generation, so the page follows both.
   */
  private readonly rendered = new WeakMap<CachedLink, { page: Page; generation: number }>();

  constructor(
    private readonly respond: PublicResponder,
    private readonly blocklist: Blocklist,
  ) {}

  serve(
    req: IncomingMessage,
    res: ServerResponse,
    code: CachedLink,
    domain: ResolvedHost | null,
  ): void {
    const bio = code.bio;
    if (!bio) return this.respond.notFound(res, domain);
    if (req.method === 'POST') return this.respond.methodNotAllowed(res);
    if (code.disabled) return this.respond.sendStatic(res, 451, STATIC.disabled);
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const go = q < 0 ? null : (GO_PARAM.exec(url.slice(q + 1))?.[1] ?? null);
    if (go === null) {
      let rendered = this.rendered.get(code);
      if (rendered?.generation !== this.blocklist.generation) {
        rendered = {
          page: bioPage(this.unblocked(bio), code.title),
          generation: this.blocklist.generation,
        };
        this.rendered.set(code, rendered);
      }
      this.respond.sendPage(res, 200, rendered.page, 'no-cache');
      return this.respond.record(req, code.id, code.userId);
    }
    const target = /^[0-9]+$/.test(go)
      ? bio.links.find((l) => l.n === Number(go))?.url
      : Object.hasOwn(SOCIAL_NETWORKS, go) && Object.hasOwn(bio.socials, go)
        ? bio.socials[go]
        : undefined;
    if (!target) return this.respond.notFound(res, domain);
    if (this.blocklist.match(target)) return this.respond.sendStatic(res, 451, STATIC.disabled);
    this.respond.redirect(res, target, 'no-store');
    this.respond.record(req, code.id, code.userId);
  }

  /** The page's content without the buttons and social links whose destination is blocked. */
  private unblocked(bio: BioContent): BioContent {
    const allowed = (url: string) => this.blocklist.match(url) === null;
    return {
      ...bio,
      links: bio.links.filter((l) => allowed(l.url)),
      socials: Object.fromEntries(Object.entries(bio.socials).filter(([, url]) => allowed(url))),
    };
  }
}
