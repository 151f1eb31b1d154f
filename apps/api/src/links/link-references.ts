import { Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';

import { InvalidFieldError, NotFoundError, PlanService, Principal } from '@app/common';
import {
  Campaign,
  Channel,
  ChannelItem,
  LinkType,
  Overlay,
  Pixel,
  SplashPage,
} from '@app/database';
import { ownDomain } from '@app/links';

/** How a link forwards, as stored. */
export interface LinkStyle {
  type: LinkType;
  overlayId: number | null;
  splashId: number | null;
}

/**
 * What a link body names besides itself (branded domain, splash page or overlay, pixels,
 * campaign, channel), resolved to the caller's own rows inside the creating or updating
 * transaction: another user's id is a 404 (or a 400 naming the field), a disabled plan feature a
 * 403.
 */
@Injectable()
export class LinkReferences {
  constructor(private readonly plans: PlanService) {}

  /** The caller's branded domain named by id, host name or `http(s)://host`; null for none. */
  readonly domain = ownDomain;

  /** `type`: direct, frame, splash (the newest splash page), overlay (the newest) or an overlay id. */
  async style(em: EntityManager, auth: Principal, type: string | number): Promise<LinkStyle> {
    const userId = auth.user.id;
    if (type === 'direct' || type === 'frame') return { type, overlayId: null, splashId: null };
    if (type === 'splash') {
      this.plans.assertFeature(auth, 'splash');
      const splash = await em.findOne(SplashPage, { where: { userId }, order: { id: 'DESC' } });
      if (!splash) throw new InvalidFieldError('type', 'you have no splash page');
      return { type: 'splash', overlayId: null, splashId: splash.id };
    }
    this.plans.assertFeature(auth, 'overlay');
    const overlay =
      typeof type === 'number'
        ? await em.findOne(Overlay, { where: { id: type, userId } })
        : await em.findOne(Overlay, { where: { userId }, order: { id: 'DESC' } });
    if (!overlay) {
      if (typeof type === 'number') throw new NotFoundError('Overlay');
      throw new InvalidFieldError('type', 'you have no CTA overlay');
    }
    return { type: 'overlay', overlayId: overlay.id, splashId: null };
  }

  /** The caller's pixels, sorted and without repeats. */
  async pixels(em: EntityManager, auth: Principal, ids: number[] | undefined): Promise<number[]> {
    if (!ids?.length) return [];
    this.plans.assertFeature(auth, 'pixels');
    const unique = [...new Set(ids)];
    const owned = await em.find(Pixel, {
      select: { id: true },
      where: { id: In(unique), userId: auth.user.id },
    });
    if (owned.length !== unique.length) throw new NotFoundError('Pixel');
    return unique.sort((a, b) => a - b);
  }

  async campaign(em: EntityManager, userId: number, id: number): Promise<number> {
    if (!(await em.exists(Campaign, { where: { id, userId } })))
      throw new NotFoundError('Campaign');
    return id;
  }

  async channel(em: EntityManager, userId: number, id: number): Promise<number> {
    if (!(await em.exists(Channel, { where: { id, userId } }))) throw new NotFoundError('Channel');
    return id;
  }

  /** Puts the link into the channel (assigning twice is harmless). */
  async assignChannel(
    em: EntityManager,
    userId: number,
    channelId: number,
    linkId: number,
  ): Promise<void> {
    await em
      .createQueryBuilder()
      .insert()
      .into(ChannelItem)
      .values({ channelId, userId, itemType: 'links', itemId: linkId })
      .orIgnore()
      .execute();
  }
}
