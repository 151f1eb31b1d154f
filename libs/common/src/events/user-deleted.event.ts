/** A short code the deleted user owned. */
export interface DeletedShortCode {
  kind: 'link' | 'qr' | 'bio';
  alias: string;
}

/**
 * Emitted (EventEmitter2, awaited) after a user and everything they owned were deleted. Features
 * clean up what lives outside Postgres (cached answers, image files) in a listener of their own,
 * so that deleting a user needs to know none of them. What the rows were is carried here, since
 * they are gone when the event is emitted.
 */
export class UserDeletedEvent {
  static readonly event = 'user.deleted';

  constructor(
    readonly userId: number,
    /** Every short link, QR link and bio page the user had. */
    readonly codes: DeletedShortCode[],
    /** The hosts of the user's branded domains. */
    readonly hosts: string[],
  ) {}
}
