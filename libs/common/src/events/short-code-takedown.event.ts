import type { DeletedShortCode } from './user-deleted.event';

/**
 * Emitted (EventEmitter2, awaited) after an admin disabled or enabled a short code, once the
 * change has committed and LinkCache has dropped its aliases: features that cache short codes
 * elsewhere (QR codes) drop them too.
 */
export class ShortCodeTakedownEvent {
  static readonly event = 'shortcode.takedown';

  constructor(
    readonly kind: DeletedShortCode['kind'],
    readonly aliases: string[],
    readonly disabled: boolean,
  ) {}
}
