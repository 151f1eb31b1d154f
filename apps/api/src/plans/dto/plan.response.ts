import { ApiProperty } from '@nestjs/swagger';

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
  @ApiProperty({ type: Number, nullable: true, example: 9.99 }) monthly: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 99 }) yearly: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 299 }) lifetime: number | null;
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
