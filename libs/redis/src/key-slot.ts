/** Hash slots of a Redis Cluster. */
export const CLUSTER_SLOTS = 16384;

/** CRC16 (XMODEM, polynomial 0x1021) of every byte value: one lookup per byte. */
const CRC16_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[byte] = crc;
  }
  return table;
})();

/**
 * The hash slot of `key` as Redis Cluster computes it: CRC16 (XMODEM) of the key, or of its hash
 * tag (what lies between the first `{` and the next `}`, when not empty), modulo 16384.
 * Keys that share a tag share a slot: that is how one script or transaction touches several.
 * A key whose hashed part is ASCII (every key this project names) is read as it is, without
 * encoding it to bytes (UTF-8 never puts `{` or `}` inside another character, so the tag is
 * found alike): this runs for every key of the request path's batched reads on a cluster.
 */
export function keySlot(key: string): number {
  const n = key.length;
  let start = 0;
  let end = n;
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) {
      start = open + 1;
      end = close;
    }
  }
  let crc = 0;
  for (let i = start; i < end; i++) {
    const code = key.charCodeAt(i);
    if (code > 0x7f) return bytesSlot(key);
    crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[(crc >> 8) ^ code];
  }
  return crc % CLUSTER_SLOTS;
}

/** keySlot of a key with characters past ASCII: over its UTF-8 bytes, as Redis sees them. */
function bytesSlot(key: string): number {
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
  for (let i = start; i < end; i++)
    crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[(crc >> 8) ^ bytes[i]];
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

/** Hash slots a cache's entries spread over on a Redis Cluster (several per primary). */
export const CACHE_BUCKETS = 16;

/**
 * The bucket of a cache key (FNV-1a over its UTF-16 code units): on a cluster a SharedCache keeps
 * `key` under the hash tag `{<cache name>:<bucket>}`.
 */
export function cacheBucket(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % CACHE_BUCKETS;
}
