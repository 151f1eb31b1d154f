import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';

import {
  AuditLog,
  ConflictError,
  fieldsOf,
  NotFoundError,
  PageQueryDto,
  ListBudget,
  paginateCounted,
  Paginated,
  PlanService,
  Principal,
  PublicUrls,
} from '@app/common';
import { Campaign, isForeignKeyViolation, isUniqueViolation, Link } from '@app/database';

import { AddCampaignDto } from './dto/add-campaign.dto';
import { CampaignView, campaignView } from './dto/campaign.view';
import { UpdateCampaignDto } from './dto/update-campaign.dto';

const DUPLICATE_SLUG = 'slug: another campaign already uses this slug';

@Injectable()
export class CampaignsService {
  constructor(
    @InjectRepository(Campaign) private readonly campaigns: Repository<Campaign>,
    @InjectRepository(Link) private readonly links: Repository<Link>,
    private readonly urls: PublicUrls,
    private readonly plans: PlanService,
    private readonly audit: AuditLog,
    private readonly budget: ListBudget,
  ) {}

  list(auth: Principal, query: PageQueryDto): Promise<Paginated<CampaignView>> {
    return paginateCounted(
      this.budget,
      this.campaigns,
      'campaign',
      auth.user.id,
      query,
      'campaigns',
      (c) => campaignView(c, this.urls),
    );
  }

  /** Campaigns need the plan feature "bundle" (403 otherwise). */
  async add(auth: Principal, dto: AddCampaignDto): Promise<CampaignView> {
    this.plans.assertFeature(auth, 'bundle');
    const slug = dto.slug || null;
    await this.assertSlugFree(slug);
    const campaign = this.campaigns.create({
      userId: auth.user.id,
      name: dto.name ?? '',
      slug,
      public: dto.public ?? false,
    });
    const audited = {
      action: 'campaign.create',
      resource: { type: 'campaign', id: (c: Campaign) => c.id },
      changes: fieldsOf(dto),
    };
    const saved = await this.audit.change(auth, audited, (em) => this.save(em, campaign));
    return campaignView(saved, this.urls);
  }

  async update(auth: Principal, id: number, dto: UpdateCampaignDto): Promise<CampaignView> {
    const campaign = await this.campaigns.findOneBy({ id, userId: auth.user.id });
    if (!campaign) throw new NotFoundError('Campaign');
    if (dto.slug !== undefined && (dto.slug || null) !== campaign.slug) {
      campaign.slug = dto.slug || null;
      await this.assertSlugFree(campaign.slug);
    }
    campaign.name = dto.name;
    if (dto.public !== undefined) campaign.public = dto.public;
    const audited = {
      action: 'campaign.update',
      resource: { type: 'campaign', id },
      changes: fieldsOf(dto),
    };
    const saved = await this.audit.change(auth, audited, (em) => this.save(em, campaign));
    return campaignView(saved, this.urls);
  }

  /** Its links stay, unassigned (links.campaign_id is ON DELETE SET NULL). */
  async remove(auth: Principal, id: number): Promise<void> {
    const audited = { action: 'campaign.delete', resource: { type: 'campaign', id } };
    await this.audit.change(auth, audited, async (em) => {
      const result = await em.delete(Campaign, { id, userId: auth.user.id });
      if (!result.affected) throw new NotFoundError('Campaign');
    });
  }

  /**
   * A link is in at most one campaign: assigning moves it. Only the caller's plain links qualify.
   * Audited as `campaign.assign` of the campaign, field `links`.
   */
  async assign(auth: Principal, campaignId: number, linkId: number): Promise<void> {
    if (!(await this.campaigns.existsBy({ id: campaignId, userId: auth.user.id })))
      throw new NotFoundError('Campaign');
    const audited = {
      action: 'campaign.assign',
      resource: { type: 'campaign', id: campaignId },
      changes: ['links'],
    };
    try {
      await this.audit.change(auth, audited, async (em) => {
        const { affected } = await em.update(
          Link,
          { id: linkId, userId: auth.user.id, kind: 'link' },
          { campaignId },
        );
        if (!affected) throw new NotFoundError('Link');
      });
    } catch (err) {
      // The campaign was deleted between the check and the update.
      if (isForeignKeyViolation(err)) throw new NotFoundError('Campaign');
      throw err;
    }
  }

  private async assertSlugFree(slug: string | null): Promise<void> {
    if (slug && (await this.campaigns.existsBy({ slug }))) throw new ConflictError(DUPLICATE_SLUG);
  }

  /** Saves, turning a unique-index race on the slug into the same 409 as the check before it. */
  private async save(em: EntityManager, campaign: Campaign): Promise<Campaign> {
    try {
      return await em.save(campaign);
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(DUPLICATE_SLUG);
      throw err;
    }
  }
}
