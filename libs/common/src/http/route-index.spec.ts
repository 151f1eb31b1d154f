import { RouteIndex } from './route-index';

describe('RouteIndex', () => {
  const routes = new RouteIndex();
  routes.load({
    '/api/url/{id}': { get: {} },
    '/api/url/{id}/delete': { delete: {} },
    '/api/url/{id}/update': { put: {} },
    '/api/url/add': { post: {} },
    '/api/user/login/{id}': { post: {} },
    '/api/user/{id}': { get: {} },
    '/api/user/login': { post: {} },
    '/api/webhooks': { get: {} },
  });

  it('a method the path does not have: 405, Allow, and the route of that method one step further', () => {
    expect(routes.miss('DELETE', '/api/url/2')).toEqual({
      status: 405,
      allow: 'GET, HEAD',
      message: 'Method not allowed: /api/url/:id answers GET, HEAD; use DELETE /api/url/:id/delete',
    });
    expect(routes.miss('PUT', '/api/url/2/')).toMatchObject({
      status: 405,
      message: 'Method not allowed: /api/url/:id answers GET, HEAD; use PUT /api/url/:id/update',
    });
    expect(routes.miss('GET', '/api/url/2/delete')).toEqual({
      status: 405,
      allow: 'DELETE',
      message: 'Method not allowed: /api/url/:id/delete answers DELETE',
    });
    // the most literal route of the path is named, the methods of all of them allowed
    expect(routes.miss('DELETE', '/api/user/login')).toMatchObject({
      status: 405,
      allow: 'POST, GET, HEAD',
      message: 'Method not allowed: /api/user/login answers POST, GET, HEAD',
    });
  });

  it('a path no route has: 404, naming the route meant when there is one', () => {
    expect(routes.miss('GET', '/api/nothing')).toEqual({ status: 404, message: 'Route not found' });
    expect(routes.miss('POST', '/api/webhooks/x/y')).toEqual({
      status: 404,
      message: 'Route not found',
    });
    expect(routes.miss('DELETE', '/api/url')).toEqual({
      status: 404,
      message: 'Route not found',
    });
  });
});
