import { Global, Module } from '@nestjs/common';

import { AppConfig, loadConfig } from './app-config';

/** Provides the validated AppConfig everywhere; validation runs once, when the module is built. */
@Global()
@Module({
  providers: [{ provide: AppConfig, useFactory: () => loadConfig() }],
  exports: [AppConfig],
})
export class ConfigModule {}
