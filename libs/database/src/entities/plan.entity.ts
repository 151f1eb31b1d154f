import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

import { numericTransformer } from '../transformers';

export type FeatureFlag = { enabled: '0' | '1' };
export type FeatureCount = { enabled: '0' | '1'; count: string };

/** The documented `limits` object of a plan. */
export interface PlanLimits {
  links: number;
  clicks: number;
  retention: number;
  custom: FeatureFlag;
  multiple: FeatureFlag;
  alias: FeatureFlag;
  device: FeatureFlag;
  geo: FeatureFlag;
  bundle: FeatureFlag;
  parameters: FeatureFlag;
  export: FeatureFlag;
  api: FeatureFlag;
  team: FeatureCount;
  splash: FeatureCount;
  overlay: FeatureCount;
  pixels: FeatureCount;
  domain: FeatureCount;
}

export type CountedFeature = 'team' | 'splash' | 'overlay' | 'pixels' | 'domain';
export type FlagFeature = Exclude<keyof PlanLimits, 'links' | 'clicks' | 'retention'>;

@Entity('plans')
export class Plan {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'boolean', default: false })
  free: boolean;

  @Column({
    name: 'price_monthly',
    type: 'numeric',
    precision: 10,
    scale: 2,
    nullable: true,
    transformer: numericTransformer,
  })
  priceMonthly: number | null;

  @Column({
    name: 'price_yearly',
    type: 'numeric',
    precision: 10,
    scale: 2,
    nullable: true,
    transformer: numericTransformer,
  })
  priceYearly: number | null;

  @Column({
    name: 'price_lifetime',
    type: 'numeric',
    precision: 10,
    scale: 2,
    nullable: true,
    transformer: numericTransformer,
  })
  priceLifetime: number | null;

  @Column({ type: 'jsonb' })
  limits: PlanLimits;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
