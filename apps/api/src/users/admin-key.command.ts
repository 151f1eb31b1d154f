import { NestFactory } from '@nestjs/core';

import { AppModule } from '../app.module';
import { UsersService } from './users.service';

const USAGE = 'usage: npm run admin:key -- --email <e-mail> [--rotate]';

/** A failure of the command: its message is the one line the operator sees (exit code 1). */
export class CommandError extends Error {}

/**
 * `npm run admin:key -- --email <e> [--rotate]` (`node dist/apps/api/main.js admin-key ...`):
 * prints the API key of the user with that e-mail (its stored copy, sealed with APP_SECRET), or
 * with `--rotate` gives it a new key and prints that: the old key stops working on every api
 * replica and the login links issued before are revoked (UsersService.rotateKey, as
 * `POST /api/user/:id/key/rotate`). Only the key goes to stdout, so it can be captured.
 */
export async function adminKey(args: string[]): Promise<void> {
  let email: string | undefined;
  let rotate = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--rotate') rotate = true;
    else if (arg === '--email') email = args[++i];
    else if (arg.startsWith('--email=')) email = arg.slice('--email='.length);
    else throw new CommandError(`unknown argument ${arg}; ${USAGE}`);
  }
  if (!email) throw new CommandError(USAGE);

  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  try {
    const found = await app.get(UsersService).keyByEmail(email, rotate);
    if (!found) throw new CommandError(`no user has the e-mail ${email}`);
    if (found.key === null)
      throw new CommandError(
        `the stored copy of ${email}'s key was sealed under another APP_SECRET: give it a new key with --rotate`,
      );
    if (rotate)
      console.error(
        `new API key of ${email} (user ${found.id}); the old key and its login links no longer work:`,
      );
    console.log(found.key);
  } finally {
    await app.close();
  }
}
