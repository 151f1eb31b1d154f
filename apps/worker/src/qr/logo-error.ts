/**
 * Why a logo could not be used; the message is shown to the owner as the render `reason`.
 * `permanent` failures (refused address, not an image, too large, 404) are not retried.
 */
export class LogoError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'LogoError';
  }
}
