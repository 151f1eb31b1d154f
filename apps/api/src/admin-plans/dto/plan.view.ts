import { ApiProperty } from '@nestjs/swagger';

import { FeatureCount, FeatureFlag, Plan, PlanLimits } from '@app/database';

class FeatureFlagResponse {
  @ApiProperty({ enum: ['0', '1'] }) enabled: '0' | '1';
}

class FeatureCountResponse {
  @ApiProperty({ enum: ['0', '1'] }) enabled: '0' | '1';
  @ApiProperty({
    example: '10',
    description: 'Maximum number (an integer as a string); "0" = unlimited',
  })
  count: string;
}

class PlanPricesResponse {
  @ApiProperty({ type: Number, format: 'double', nullable: true, example: 9.99 }) monthly:
    number | null;
  @ApiProperty({ type: Number, format: 'double', nullable: true, example: 99 }) yearly:
    number | null;
  @ApiProperty({ type: Number, format: 'double', nullable: true, example: 299 }) lifetime:
    number | null;
}

class PlanLimitsResponse {
  @ApiProperty({ description: 'Links a user may own; 0 = unlimited' }) links: number;
  @ApiProperty({ description: 'Clicks counted per calendar month; 0 = unlimited' }) clicks: number;
  @ApiProperty({ description: 'Days statistics are kept; 0 = forever' }) retention: number;
  @ApiProperty({ type: () => FeatureFlagResponse }) custom: FeatureFlagResponse;
  @ApiProperty({ type: () => FeatureFlagResponse }) multiple: FeatureFlagResponse;
  @ApiProperty({ type: () => FeatureFlagResponse }) alias: FeatureFlagResponse;
  @ApiProperty({ type: () => FeatureFlagResponse }) device: FeatureFlagResponse;
  @ApiProperty({ type: () => FeatureFlagResponse }) geo: FeatureFlagResponse;
  @ApiProperty({ type: () => FeatureFlagResponse }) bundle: FeatureFlagResponse;
  @ApiProperty({ type: () => FeatureFlagResponse }) parameters: FeatureFlagResponse;
  @ApiProperty({ type: () => FeatureFlagResponse }) export: FeatureFlagResponse;
  @ApiProperty({ type: () => FeatureFlagResponse }) api: FeatureFlagResponse;
  @ApiProperty({ type: () => FeatureCountResponse }) team: FeatureCountResponse;
  @ApiProperty({ type: () => FeatureCountResponse }) splash: FeatureCountResponse;
  @ApiProperty({ type: () => FeatureCountResponse }) overlay: FeatureCountResponse;
  @ApiProperty({ type: () => FeatureCountResponse }) pixels: FeatureCountResponse;
  @ApiProperty({ type: () => FeatureCountResponse }) domain: FeatureCountResponse;
}

/** The documented Plan (OpenAPI model). */
export class PlanResponse {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty() free: boolean;
  @ApiProperty({
    type: () => PlanPricesResponse,
    nullable: true,
    description: 'null for a free plan; a price is null when the plan is not sold for that period',
  })
  prices: PlanPricesResponse | null;
  @ApiProperty({ type: () => PlanLimitsResponse }) limits: PlanLimitsResponse;
}

/** The documented Plan. */
export interface PlanView {
  id: number;
  name: string;
  free: boolean;
  prices: { monthly: number | null; yearly: number | null; lifetime: number | null } | null;
  limits: PlanLimits;
}

const FLAGS = [
  'custom',
  'multiple',
  'alias',
  'device',
  'geo',
  'bundle',
  'parameters',
  'export',
  'api',
] as const;
const COUNTED = ['team', 'splash', 'overlay', 'pixels', 'domain'] as const;

const toInt = (v: unknown): number => {
  const n = Number(v);
  return Number.isInteger(n) && n >= 0 ? n : 0;
};

/**
 * The full documented `limits` object from the stored jsonb, in the documented order. A key an
 * operator left out reads as the plan checks read it: a missing flag is disabled, a missing or
 * malformed number is 0 (unlimited).
 */
export function planLimits(raw: Partial<Record<keyof PlanLimits, unknown>> | null): PlanLimits {
  const src = (raw ?? {}) as Record<string, { enabled?: unknown; count?: unknown } | undefined>;
  const enabled = (f: string): '0' | '1' => (src[f]?.enabled === '1' ? '1' : '0');
  const flags = Object.fromEntries(
    FLAGS.map((f) => [f, { enabled: enabled(f) } satisfies FeatureFlag]),
  );
  const counted = Object.fromEntries(
    COUNTED.map((f) => [
      f,
      { enabled: enabled(f), count: String(toInt(src[f]?.count)) } satisfies FeatureCount,
    ]),
  );
  return {
    links: toInt(raw?.links),
    clicks: toInt(raw?.clicks),
    retention: toInt(raw?.retention),
    ...flags,
    ...counted,
  } as PlanLimits;
}

/** The documented view of a plan row. */
export function planView(plan: Plan): PlanView {
  return {
    id: plan.id,
    name: plan.name,
    free: plan.free,
    prices: plan.free
      ? null
      : { monthly: plan.priceMonthly, yearly: plan.priceYearly, lifetime: plan.priceLifetime },
    limits: planLimits(plan.limits),
  };
}
