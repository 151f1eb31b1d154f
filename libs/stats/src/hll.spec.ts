import { randomBytes } from 'node:crypto';

import {
  countRegisters,
  countUnion,
  coveredBy,
  emptyRegisters,
  compactHll,
  encodeDense,
  encodeSparse,
  HLL_REGISTERS,
  mergeHll,
  mergeRegisters,
} from './hll';

/** Registers after adding `n` random elements the way Redis does (index: low 14 bits; run: trailing zeros + 1). */
function simulated(n: number): Uint8Array {
  const registers = emptyRegisters();
  const bytes = randomBytes(n * 8);
  for (let i = 0; i < n; i++) {
    const hash = bytes.readBigUInt64LE(i * 8);
    const index = Number(hash & 0x3fffn);
    let rest = (hash >> 14n) | (1n << 50n);
    let run = 1;
    while ((rest & 1n) === 0n) {
      run++;
      rest >>= 1n;
    }
    if (run > registers[index]) registers[index] = run;
  }
  return registers;
}

/** A sparse sketch: header, then opcodes. */
function sparse(...ops: number[]): Buffer {
  const header = Buffer.alloc(16);
  header.write('HYLL', 0, 'latin1');
  header[4] = 1;
  return Buffer.concat([header, Buffer.from(ops)]);
}

describe('HyperLogLog sketches (Redis layout)', () => {
  it('an empty sketch counts 0; dense encoding round-trips every register', () => {
    expect(countRegisters(emptyRegisters())).toBe(0);
    const registers = simulated(5000);
    const back = emptyRegisters();
    expect(mergeHll(back, encodeDense(registers))).toBe(true);
    expect(back).toEqual(registers);
    expect(encodeDense(registers).subarray(0, 5).toString('latin1')).toBe('HYLL\u0000');
  });

  it('reads sparse opcodes: ZERO, XZERO and VAL runs', () => {
    // VAL value 3 run 2 (registers 0,1), XZERO run 16380 (2..16381), ZERO run 1 (16382), VAL value 1 run 1 (16383)
    const xzero = 16380 - 1;
    const blob = sparse(
      0x80 | ((3 - 1) << 2) | (2 - 1),
      0x40 | (xzero >> 8),
      xzero & 0xff,
      0x00,
      0x80 | 0,
    );
    const registers = emptyRegisters();
    expect(mergeHll(registers, blob)).toBe(true);
    expect([registers[0], registers[1], registers[2], registers[16382], registers[16383]]).toEqual([
      3, 3, 0, 0, 1,
    ]);
  });

  it('sparse encoding round-trips, and compacts a dense sketch of a few thousand elements', () => {
    for (const n of [0, 1, 50, 2000, 20_000]) {
      const registers = simulated(n);
      const sparse = encodeSparse(registers);
      expect(sparse).not.toBeNull();
      const back = emptyRegisters();
      expect(mergeHll(back, sparse!)).toBe(true);
      expect(back).toEqual(registers);
    }
    const dense = encodeDense(simulated(2000));
    const compact = compactHll(dense);
    expect(compact[4]).toBe(1);
    expect(compact.length).toBeLessThan(dense.length / 2.5);
    expect(countUnion([compact])).toBe(countUnion([dense]));
    // many elements: dense is the smaller
    const big = encodeDense(simulated(100_000));
    expect(compactHll(big)).toEqual(big);
    // a register over 32 cannot be sparse
    const odd = emptyRegisters();
    odd[7] = 40;
    expect(encodeSparse(odd)).toBeNull();
  });

  it('refuses what is not a sketch, or a sparse sketch that does not cover every register', () => {
    expect(mergeHll(emptyRegisters(), Buffer.from('not a sketch at all'))).toBe(false);
    expect(mergeHll(emptyRegisters(), sparse(0x00))).toBe(false);
    expect(mergeHll(emptyRegisters(), Buffer.from('HYLL'))).toBe(false);
    expect(countUnion([null, Buffer.from('junk')])).toBe(0);
  });

  it('counts within the standard error (0.81 %; 3 sigma here)', () => {
    for (const n of [100, 10_000, 200_000]) {
      const estimate = countRegisters(simulated(n));
      expect(Math.abs(estimate - n) / n).toBeLessThan(n < 1000 ? 0.05 : 0.0243);
    }
  });

  it('the union of two sketches of the same set counts it once; of disjoint sets, both', () => {
    const a = simulated(20_000);
    const union = countUnion([encodeDense(a), encodeDense(a)]);
    expect(union).toBe(countRegisters(a));
    const b = simulated(20_000);
    const merged = emptyRegisters();
    mergeRegisters(merged, a);
    mergeRegisters(merged, b);
    expect(Math.abs(countRegisters(merged) - 40_000) / 40_000).toBeLessThan(0.0243);
    expect(coveredBy(a, merged)).toBe(true);
    expect(coveredBy(merged, a)).toBe(false);
    expect(merged.length).toBe(HLL_REGISTERS);
  });
});
