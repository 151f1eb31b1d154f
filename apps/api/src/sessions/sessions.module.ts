import { Module } from '@nestjs/common';

import { SessionsController } from './sessions.controller';
import { SessionsService } from './sessions.service';
import { SignInAttempts } from './sign-in-attempts';

/** Sign-in for people: `POST/GET/DELETE /auth/session` (the sessions themselves: SessionStore). */
@Module({
  controllers: [SessionsController],
  providers: [SessionsService, SignInAttempts],
})
export class SessionsModule {}
