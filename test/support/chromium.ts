import { Browser, chromium } from 'playwright-core';

/** Debian's Chromium (installed by `.ci/run`). */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Debian's Chromium, headless and quiet (no QUIC, no background fetches, no component updates),
 * resolving host names by `hostRules` (`--host-resolver-rules`, e.g. `MAP short.test
 * 127.0.0.1:4000`), so that pages under test can use their real host names.
 */
export function launchChromium(hostRules: string): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--host-resolver-rules=${hostRules}`,
    ],
  });
}
