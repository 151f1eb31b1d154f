import { formatMismatches, takeMismatches } from './openapi';

/**
 * Every e2e suite: the responses its requests got through `TestApp.http()` must match the OpenAPI
 * document (test/support/openapi.ts records the mismatches); any mismatch fails the suite here.
 */
afterAll(() => {
  const mismatches = takeMismatches();
  if (mismatches.length) throw new Error(formatMismatches(mismatches));
});
