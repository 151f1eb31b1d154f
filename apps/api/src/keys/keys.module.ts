import { Module } from '@nestjs/common';

import { KeysController } from './keys.controller';
import { KeysService } from './keys.service';

/** Named API keys: /api/keys, /api/key/add, /api/key/:id/update|delete. */
@Module({ controllers: [KeysController], providers: [KeysService] })
export class KeysModule {}
