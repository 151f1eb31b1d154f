import { Body, Controller, Delete, Get, Post, Put, Query, Type } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';

import {
  ApiErrors,
  ApiOkData,
  ApiOkFields,
  ApiOkList,
  ApiOkMessage,
  Auth,
  ForArea,
  IdParam,
  PageQueryDto,
  Principal,
} from '@app/common';

import { LinkPageKind, LinkPageRow } from './link-page-kind';
import { LinkPages } from './link-pages.service';

/** The routes of one link page kind: what they take, answer and say in the OpenAPI document. */
export interface LinkPageRoutes<R extends LinkPageRow, B, V, D> {
  kind: LinkPageKind<R, B, V, D>;
  tag: string;
  /** One page in summaries: "Add a CTA overlay"; "The caller's CTA overlays" (with an s). */
  noun: string;
  getSummary: string;
  /** What a link of the kind shows; the add route's description starts with it. */
  pageDoc: string;
  bodies: { add: Type<B>; update: Type<Partial<B>> };
  views: { list: Type<V>; details: Type<D>; created: Type<{ id: number }> };
}

/**
 * TypeScript records a parameter typed by a type parameter as `Object`, which the validation pipe
 * and the OpenAPI document would take for "anything": name the kind's body class instead.
 */
function bodyClass(controller: Type<unknown>, method: string, index: number, body: Type<unknown>) {
  const types = [...Reflect.getMetadata('design:paramtypes', controller.prototype, method)];
  types[index] = body;
  Reflect.defineMetadata('design:paramtypes', types, controller.prototype, method);
}

/**
 * The controller of one link page kind: `/api/<type>` (list), `/api/<type>/:id`,
 * `/api/<type>/add`, `/api/<type>/:id/update` and `/api/<type>/:id/delete`. A feature extends it
 * (`class OverlaysController extends LinkPagesController(…)`), which names its operations.
 */
export function LinkPagesController<R extends LinkPageRow, B, V, D>(
  routes: LinkPageRoutes<R, B, V, D>,
) {
  const { kind, noun } = routes;

  @ApiTags(routes.tag)
  @ApiBearerAuth()
  @ForArea('pages')
  @Controller('api')
  class LinkPageRoutesController {
    constructor(private readonly pages: LinkPages) {}

    @Get(kind.type)
    @ApiOperation({ summary: `The caller's ${noun}s, newest first` })
    @ApiOkList(kind.listKey, routes.views.list)
    @ApiErrors(400, 403)
    list(@Auth() auth: Principal, @Query() query: PageQueryDto) {
      return this.pages.list(kind, auth, query);
    }

    @Get(`${kind.type}/:id`)
    @ApiOperation({ summary: routes.getSummary })
    @ApiOkData(routes.views.details)
    @ApiErrors(400, 403, 404)
    get(@Auth() auth: Principal, @IdParam('id') id: number) {
      return this.pages.get(kind, auth, id);
    }

    @Post(`${kind.type}/add`)
    @ApiOperation({
      summary: `Add a ${noun}: \`{error, id}\``,
      description: `${routes.pageDoc} 403 past the plan's \`${kind.type}\` count or when the plan has ${kind.label.toLowerCase()}s disabled.`,
    })
    @ApiOkFields(routes.views.created)
    @ApiErrors(400, 403, 413)
    add(@Auth() auth: Principal, @Body() dto: B) {
      return this.pages.add(kind, auth, dto);
    }

    @Put(`${kind.type}/:id/update`)
    @ApiOperation({
      summary: `Change a ${noun}: \`{error, message}\``,
      description: 'Only the fields sent change; links showing it show the change at once.',
    })
    @ApiOkMessage()
    @ApiErrors(400, 403, 404, 413)
    async update(@Auth() auth: Principal, @IdParam('id') id: number, @Body() dto: Partial<B>) {
      await this.pages.update(kind, auth, id, dto);
      return { message: `${kind.label} has been updated successfully.` };
    }

    @Delete(`${kind.type}/:id/delete`)
    @ApiOperation({
      summary: `Delete a ${noun}: \`{error, message}\``,
      description: 'Links that used it become direct links.',
    })
    @ApiOkMessage()
    @ApiErrors(400, 403, 404)
    async remove(@Auth() auth: Principal, @IdParam('id') id: number) {
      await this.pages.remove(kind, auth, id);
      return { message: `${kind.label} has been deleted successfully.` };
    }
  }

  bodyClass(LinkPageRoutesController, 'add', 1, routes.bodies.add);
  bodyClass(LinkPageRoutesController, 'update', 2, routes.bodies.update);
  return LinkPageRoutesController;
}
