import { Module } from '@nestjs/common';

import { NotFoundPublicHandler } from './not-found.handler';
import { PublicHandler } from './public-handler';

@Module({ providers: [{ provide: PublicHandler, useClass: NotFoundPublicHandler }], exports: [PublicHandler] })
export class PublicModule {}
