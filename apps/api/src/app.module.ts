import { Module } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { LoggerModule } from 'nestjs-pino';

import { CommonModule } from '@app/common';
import { AppConfig, ConfigModule } from '@app/config';
import { DatabaseModule } from '@app/database';
import { QueueModule } from '@app/queue';
import { RedisModule } from '@app/redis';
import { StatsModule } from '@app/stats';
import { WebhooksLibModule } from '@app/webhooks';

import { AccountModule } from './account/account.module';
import { AdminPlansModule } from './admin-plans/admin-plans.module';
import { AuditModule } from './audit/audit.module';
import { BioModule } from './bio/bio.module';
import { CampaignsModule } from './campaigns/campaigns.module';
import { ChannelsModule } from './channels/channels.module';
import { DashboardModule } from './dashboard/dashboard.module';
import { DestinationsModule } from './destinations/destinations.module';
import { DomainsModule } from './domains/domains.module';
import { HealthModule } from './health/health.module';
import { ImportsModule } from './imports/imports.module';
import { KeysModule } from './keys/keys.module';
import { LinksModule } from './links/links.module';
import { loggerParams } from './logging';
import { LoginLinksModule } from './login-links/login-links.module';
import { OverlaysModule } from './overlays/overlays.module';
import { PixelsModule } from './pixels/pixels.module';
import { PublicModule } from './public/public.module';
import { QrModule } from './qr/qr.module';
import { SessionsModule } from './sessions/sessions.module';
import { SplashModule } from './splash/splash.module';
import { StatsApiModule } from './stats/stats.module';
import { TeamModule } from './team/team.module';
import { TlsModule } from './tls/tls.module';
import { ThreatFeedsModule } from './threat-feeds/threat-feeds.module';
import { UsersModule } from './users/users.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { ReportsModule } from './reports/reports.module';

/**
 * The api: infrastructure first, then one module per feature. A new feature is a folder under
 * apps/api/src with its own module, added to FEATURES; it reaches other features only through
 * what their modules export, and the database through @app/database.
 */
const FEATURES = [
  HealthModule,
  UsersModule,
  AccountModule,
  AdminPlansModule,
  LoginLinksModule,
  SessionsModule,
  PublicModule,
  WebhooksModule,
  DestinationsModule,
  DomainsModule,
  OverlaysModule,
  CampaignsModule,
  ChannelsModule,
  SplashModule,
  PixelsModule,
  LinksModule,
  ImportsModule,
  QrModule,
  BioModule,
  DashboardModule,
  StatsApiModule,
  KeysModule,
  TeamModule,
  AuditModule,
  TlsModule,
  ReportsModule,
  ThreatFeedsModule,
];

@Module({
  imports: [
    ConfigModule,
    EventEmitterModule.forRoot(),
    LoggerModule.forRootAsync({ inject: [AppConfig], useFactory: loggerParams }),
    DatabaseModule,
    RedisModule,
    QueueModule.forRoot(),
    CommonModule,
    StatsModule,
    WebhooksLibModule,
    ...FEATURES,
  ],
})
export class AppModule {}
