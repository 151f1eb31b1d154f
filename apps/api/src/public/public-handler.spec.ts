import { isNestPath } from './public-handler';

describe('isNestPath', () => {
  it.each([
    ['/api', true],
    ['/api/', true],
    ['/api/url?limit=2', true],
    ['/auth/login', true],
    ['/health', true],
    ['/health/ready', true],
    ['/docs', true],
    ['/docs-json', true],
    ['/docs/swagger-ui.css', true],
  ])('%s is served by Nest', (url, expected) => expect(isNestPath(url)).toBe(expected));

  it.each([
    [undefined, false],
    ['/', false],
    ['/ap', false],
    ['/apix', false],
    ['/apiary', false],
    ['/auth', false],
    ['/authors', false],
    ['/abc123', false],
    ['/h', false],
    ['/heal', false],
    ['/doc', false],
    ['/dXs123', false],
    ['/q/abc.png', false],
    ['/API/url', false],
  ])('%s is the public side', (url, expected) => expect(isNestPath(url)).toBe(expected));
});
