import { randomBytes } from 'node:crypto';

import {
  compactEncoding,
  compactUnion,
  countRegisters,
  countUnion,
  coveredBy,
  emptyRegisters,
  compactHll,
  encodeDense,
  encodeSet,
  encodeSparse,
  fromSparse,
  HLL_REGISTERS,
  mergeHll,
  mergeRegisters,
  unionOf,
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

  it('the registers a sketch sets: read from its sparse form, merged and encoded again byte for byte as the register array would be', () => {
    const setOf = (registers: Uint8Array) => {
      const index: number[] = [];
      const value: number[] = [];
      registers.forEach((v, r) => {
        if (v) {
          index.push(r);
          value.push(v);
        }
      });
      return { index, value };
    };
    // runs of equal values next to each other (VAL runs of 1–4), long and short zero runs
    const runs = emptyRegisters();
    runs.fill(3, 10, 17);
    runs.fill(5, 17, 19);
    runs[100] = 1;
    runs[16_383] = 32;
    for (const registers of [emptyRegisters(), runs, ...[1, 7, 50, 400, 3000].map(simulated)]) {
      const sparse = encodeSparse(registers) as Buffer;
      expect(fromSparse(sparse)).toEqual(setOf(registers));
      expect(encodeSet(setOf(registers))).toEqual(sparse);
    }
    // dense, or past the dense size, or a register over 32: not for sets
    const many = simulated(20_000);
    expect(fromSparse(encodeDense(many))).toBeNull();
    expect(encodeSet(setOf(many))).toBeNull();
    expect(compactEncoding(many)[4]).toBe(0);
    const odd = emptyRegisters();
    odd[7] = 40;
    expect(encodeSet(setOf(odd))).toBeNull();
    // the union keeps each register's larger value
    const a = simulated(300);
    const b = simulated(300);
    const both = emptyRegisters();
    mergeRegisters(both, a);
    mergeRegisters(both, b);
    expect(unionOf(setOf(a), setOf(b))).toEqual(setOf(both));
  });

  it('compactUnion is compactEncoding of the merged registers, sparse or dense, with bad input skipped as mergeHll skips it', () => {
    const cases: Uint8Array[][] = [
      [],
      [encodeSparse(simulated(5)) as Buffer],
      [encodeSparse(simulated(5)) as Buffer, encodeSparse(simulated(40)) as Buffer],
      // the union outgrows the sparse form
      Array.from({ length: 12 }, () => encodeSparse(simulated(1500)) as Buffer),
      // a dense one among sparse ones
      [encodeSparse(simulated(20)) as Buffer, encodeDense(simulated(30))],
      // not a sketch: skipped; a sparse one cut short: merged as far as it reads
      [Buffer.from('not a sketch'), encodeSparse(simulated(10)) as Buffer],
      [encodeSparse(simulated(10)) as Buffer, sparse(0x7f, 0x80 | (3 << 2))],
    ];
    for (const blobs of cases) {
      const registers = emptyRegisters();
      for (const blob of blobs) mergeHll(registers, blob);
      expect(compactUnion(blobs)).toEqual(compactEncoding(registers));
    }
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
