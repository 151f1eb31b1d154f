import { Module } from '@nestjs/common';

import { ShortCodes } from '@app/links';

/**
 * ShortCodes (@app/links), the one writer of `links` rows, for the api's features that create
 * short codes (links, bio pages, QR codes) and Takedowns. The worker provides it in its import
 * module. Its dependencies (PlanService, PublicUrls, WebhookOutbox) are global in the api.
 */
@Module({ providers: [ShortCodes], exports: [ShortCodes] })
export class ShortCodesModule {}
