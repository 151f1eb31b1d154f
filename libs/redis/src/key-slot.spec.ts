import { groupBySlot, keySlot } from './key-slot';

/** CRC16 (XMODEM) bit by bit over the UTF-8 bytes, modulo 16384: the reference. */
function keySlotOfBytes(text: string): number {
  let crc = 0;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

describe('keySlot', () => {
  it.each([
    // values of CLUSTER KEYSLOT
    ['foo', 12182],
    ['bar', 5061],
    ['somekey', 11058],
    ['{user1000}.following', 3443],
    ['{user1000}.followers', 3443],
    ['a{}b', 13694], // an empty tag: the whole key
    ['x{y}z{w}', 12222], // the first tag only
    ['é', 10180], // UTF-8 bytes
    ['é{foo}', 12182], // a tag after a wider character: the tag's bytes
    ['p:{é:1}:x', keySlotOfBytes('é:1')],
  ])('%s is in slot %i', (key, slot) => {
    expect(keySlot(key)).toBe(slot);
  });

  it('agrees with the bit-by-bit CRC on many keys', () => {
    for (let i = 0; i < 2000; i++) {
      const key = `bench:link:bn${i}`;
      expect(keySlot(key)).toBe(keySlotOfBytes(key));
      expect(keySlot(`p:{link:${i % 16}}:${key}`)).toBe(keySlotOfBytes(`link:${i % 16}`));
    }
  });

  it('puts keys that share a tag in one group', () => {
    expect(groupBySlot(['p:{u:7}:a', 'foo', 'p:{u:7}:b', 'bar', 'foo'])).toEqual([
      ['p:{u:7}:a', 'p:{u:7}:b'],
      ['foo', 'foo'],
      ['bar'],
    ]);
  });
});
