/** Hash slots of a Redis Cluster. */
export const CLUSTER_SLOTS = 16384;

/**
 * The hash slot of `key` as Redis Cluster computes it: CRC16 (XMODEM) of the key, or of its hash
 * tag (what lies between the first `{` and the next `}`, when not empty), modulo 16384.
 * Keys that share a tag share a slot: that is how one script or transaction touches several.
 */
export function keySlot(key: string): number {
  const bytes = Buffer.from(key, 'utf8');
  let start = 0;
  let end = bytes.length;
  const open = bytes.indexOf(0x7b); // {
  if (open >= 0) {
    const close = bytes.indexOf(0x7d, open + 1); // }
    if (close > open + 1) {
      start = open + 1;
      end = close;
    }
  }
  let crc = 0;
  for (let i = start; i < end; i++) {
    crc ^= bytes[i] << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc % CLUSTER_SLOTS;
}

/** `keys` grouped by hash slot, in their first-seen order. */
export function groupBySlot(keys: Iterable<string>): string[][] {
  const bySlot = new Map<number, string[]>();
  for (const key of keys) {
    const slot = keySlot(key);
    const group = bySlot.get(slot);
    if (group) group.push(key);
    else bySlot.set(slot, [key]);
  }
  return [...bySlot.values()];
}
