import { ServerResponse } from 'node:http';

import { Module, OnModuleInit } from '@nestjs/common';
import { getDataSourceToken, getRepositoryToken } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';

import { ClientAddress, PUBLIC_PREFIXES, PublicUrls } from '@app/common';
import { AppConfig, ConfigModule } from '@app/config';
import { BlocklistEntry } from '@app/database';
import { Blocklist } from '@app/links';
import { RedisModule } from '@app/redis';

import { LinkCache } from '../link-cache/link-cache';
import { loggerParams } from '../logging';
import { LinkSnapshot } from '../permanence/link-snapshot';
import { OutageVisits } from '../permanence/outage-visits';
import { REDIRECTOR_PROVIDERS } from '../public/public.module';
import { PublicRoutes } from '../public/public-routes';
import { PublicResponder, STATIC } from '../public/responder';

/** What a query gets before the api has connected: Postgres unreachable (`isUnavailable`). */
function notConnected(): Promise<never> {
  return Promise.reject(
    Object.assign(new Error('Postgres unreachable: the api has not connected yet'), {
      code: 'ECONNREFUSED',
    }),
  );
}

/**
 * The public side of an api process that started while Postgres was unreachable
 * (docs/link-permanence.md#a-process-that-starts-during-the-outage): the redirector of
 * PublicModule (RedirectorHandler, PublicResponder, the link snapshot) built with what needs no
 * database. Its database is not connected: every query fails as Postgres being unreachable, so
 * the redirector answers as a running process does during the outage (the link cache's lookup
 * fails, the link snapshot covers it, even once Redis is back: `LinkSnapshot.starting`; a
 * password form's POST is a 503). There is no
 * VisitRecorder: OutageVisits holds every visit for the full api. The features' public routes
 * (QR codes, campaigns, bio pages, the dashboard) come with the full api: the 503 page until then.
 */
@Module({
  imports: [
    ConfigModule,
    LoggerModule.forRootAsync({ inject: [AppConfig], useFactory: loggerParams }),
    RedisModule,
  ],
  providers: [
    // every way in fails as Postgres unreachable: `query`, and the pool `queryPrepared`
    // (libs/database) sends the link cache's reads to
    {
      provide: getDataSourceToken(),
      useValue: { query: notConnected, driver: { master: { query: notConnected } } },
    },
    { provide: getRepositoryToken(BlocklistEntry), useValue: { find: notConnected } },
    ClientAddress,
    PublicUrls,
    Blocklist,
    LinkCache,
    LinkSnapshot,
    OutageVisits,
    ...REDIRECTOR_PROVIDERS,
  ],
})
export class StartingModule implements OnModuleInit {
  constructor(
    private readonly routes: PublicRoutes,
    private readonly respond: PublicResponder,
    private readonly snapshot: LinkSnapshot,
  ) {}

  onModuleInit(): void {
    this.snapshot.starting = true;
    const unavailable = (_req: unknown, res: ServerResponse) =>
      this.respond.sendStatic(res, 503, STATIC.unavailable);
    for (const prefix of PUBLIC_PREFIXES)
      this.routes.register(prefix, unavailable, { bare: true, post: true });
    this.routes.registerKind('bio', unavailable);
  }
}
