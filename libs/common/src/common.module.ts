import { Global, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE, DiscoveryModule } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';

import { AppConfig } from '@app/config';
import { RedisService } from '@app/redis';

import { AuditLog } from './audit/audit-log';
import { ApiKeyGuard } from './auth/api-key.guard';
import { AuthService } from './auth/auth.service';
import { KeyUsage } from './auth/key-usage';
import { PlanService } from './auth/plan.service';
import { PrincipalCache } from './auth/principal-cache';
import { RouteRules } from './auth/route-rules';
import { SessionStore } from './auth/sessions';
import { WriterMark } from './auth/writer-mark';
import { ClientAddress } from './http/client-address';
import { AllExceptionsFilter } from './http/exception.filter';
import { JsonBodyMiddleware } from './http/json-body.middleware';
import { RouteIndex } from './http/route-index';
import { createValidationPipe } from './http/validation';
import { ListBudget } from './pagination/list-budget';
import { API_THROTTLER, RateLimitMiddleware } from './rate-limit/rate-limit.middleware';
import { RedisThrottlerStorage } from './rate-limit/redis-throttler.storage';
import { PublicUrls } from './urls/public-urls';

/**
 * The cross-cutting HTTP pieces of the api, written once: rate limit → JSON body → API-key guard
 * (admin, plan gate) → validation pipe → controller → the envelope and the writer mark (the read
 * replicas' read-your-writes), where Nest replies (ApiHttpAdapter, which createApi builds the
 * app on); every error through one filter. Registered as APP_* providers so an e2e app built
 * from AppModule has exactly these. No global interceptor: see ApiHttpAdapter.
 */
@Global()
@Module({
  imports: [
    DiscoveryModule,
    ThrottlerModule.forRootAsync({
      inject: [AppConfig, RedisService],
      useFactory: (config: AppConfig, redis: RedisService) => ({
        throttlers: [
          {
            name: API_THROTTLER,
            limit: config.RATE_LIMIT,
            ttl: config.RATE_LIMIT_WINDOW_SECONDS * 1000,
          },
        ],
        storage: new RedisThrottlerStorage(redis),
      }),
    }),
  ],
  providers: [
    AuditLog,
    AuthService,
    KeyUsage,
    RouteRules,
    PlanService,
    ListBudget,
    PrincipalCache,
    ClientAddress,
    PublicUrls,
    RateLimitMiddleware,
    RouteIndex,
    SessionStore,
    // waited for by the success answer (ApiHttpAdapter) and the filter
    WriterMark,
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_PIPE, useFactory: createValidationPipe },
    { provide: APP_FILTER, useClass: AllExceptionsFilter },
  ],
  exports: [
    AuditLog,
    AuthService,
    KeyUsage,
    RouteRules,
    PlanService,
    ListBudget,
    PrincipalCache,
    ClientAddress,
    PublicUrls,
    RouteIndex,
    SessionStore,
    WriterMark,
  ],
})
export class CommonModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RateLimitMiddleware).forRoutes({ path: 'api/*path', method: RequestMethod.ALL });
    consumer.apply(JsonBodyMiddleware).forRoutes({ path: '*path', method: RequestMethod.ALL });
  }
}
