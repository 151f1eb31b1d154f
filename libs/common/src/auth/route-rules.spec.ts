import { Controller, Delete, Get, Post } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';

import { AdminOnly, ForArea, Needs, Public } from './decorators';
import { RouteRules } from './route-rules';

@ForArea('links')
@Controller('api')
class Declared {
  @Get('things')
  list() {}

  @Post('thing/add')
  add() {}

  @Needs('owner')
  @Delete('thing/:id/delete')
  remove() {}
}

@Controller('bare')
class Bare {
  @Public()
  @Get('open')
  open() {}

  @AdminOnly()
  @Get('admin')
  admin() {}

  @Get('forgotten')
  forgotten() {}

  @Post(':id/forgotten')
  forgottenToo() {}
}

async function boot(...controllers: Array<new () => unknown>) {
  const module = await Test.createTestingModule({
    imports: [DiscoveryModule],
    controllers,
    providers: [RouteRules],
  }).compile();
  const app = module.createNestApplication({ logger: false });
  return { app, init: () => app.init() };
}

/** Every route declares its need, or the app does not start (RouteRules at bootstrap). */
describe('RouteRules', () => {
  it('starts when every route is public or resolves to a need, and says each need', async () => {
    const { app, init } = await boot(Declared);
    await init();
    expect(app.get(RouteRules).operationNeeds()).toEqual({
      'get /api/things': { need: 'links:read', adminOnly: false },
      'post /api/thing/add': { need: 'links:write', adminOnly: false },
      'delete /api/thing/{id}/delete': { need: 'owner', adminOnly: false },
    });
    await app.close();
  });

  it('refuses to start with a route that declares nothing, naming every such route', async () => {
    const { app, init } = await boot(Declared, Bare);
    await expect(init()).rejects.toThrow(
      'Routes without a declared need (@Public, @Needs, @ForArea or @AdminOnly): GET /bare/forgotten, POST /bare/:id/forgotten',
    );
    await app.close().catch(() => undefined);
  });
});
