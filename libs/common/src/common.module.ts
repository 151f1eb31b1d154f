import { Global, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE, DiscoveryModule } from '@nestjs/core';
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
import { WriterMarkInterceptor } from './auth/writer-mark.interceptor';
import { ClientAddress } from './http/client-address';
import { EnvelopeInterceptor } from './http/envelope.interceptor';
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
 * (admin, plan gate) → validation pipe → controller → envelope interceptor and writer mark (the
 * read replicas' read-your-writes); every error through one filter.
 * Registered as APP_* providers so an e2e app built from AppModule has exactly these.
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
    // run by EnvelopeInterceptor, around the handler
    WriterMarkInterceptor,
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_PIPE, useFactory: createValidationPipe },
    { provide: APP_FILTER, useClass: AllExceptionsFilter },
    { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
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
  ],
})
export class CommonModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RateLimitMiddleware).forRoutes({ path: 'api/*path', method: RequestMethod.ALL });
    consumer.apply(JsonBodyMiddleware).forRoutes({ path: '*path', method: RequestMethod.ALL });
  }
}
