import { Module } from '@nestjs/common';

import { PublicModule } from '../public/public.module';
import { LinksController } from './links.controller';
import { LinksService } from './links.service';

@Module({ imports: [PublicModule], controllers: [LinksController], providers: [LinksService] })
export class LinksModule {}
