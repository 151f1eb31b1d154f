/**
 * Redis HyperLogLog sketches outside Redis: decoding the string Redis keeps for a HyperLogLog
 * (`GET` of a PFADD key, sparse or dense encoding), merging sketches register by register (the
 * union of their sets, as PFMERGE does) and counting them with Redis's own estimator, so the api
 * can count the distinct visitors of any range of stored days without sending them to Redis.
 * Layout: redis/src/hyperloglog.c (16-byte header "HYLL", encoding byte, 3 unused bytes,
 * 8-byte cached cardinality; 2^14 registers of 6 bits).
 */

const P = 14;
/** Registers of a sketch (2^14): the standard error of a count is 1.04 / sqrt(16384) = 0.81 %. */
export const HLL_REGISTERS = 1 << P;
const Q = 64 - P;
const HEADER = 16;
const DENSE_BYTES = (HLL_REGISTERS * 6) / 8;
const ALPHA_INF = 0.7213475204444817;
const DENSE = 0;
const SPARSE = 1;

/** An empty set of registers to merge sketches into. */
export function emptyRegisters(): Uint8Array {
  return new Uint8Array(HLL_REGISTERS);
}

/** Whether `blob` starts like a Redis HyperLogLog. */
function isHll(blob: Uint8Array): boolean {
  return (
    blob.length >= HEADER &&
    blob[0] === 0x48 && // H
    blob[1] === 0x59 && // Y
    blob[2] === 0x4c && // L
    blob[3] === 0x4c && // L
    (blob[4] === DENSE || blob[4] === SPARSE)
  );
}

/**
 * Merges a Redis HyperLogLog string into `registers` (each register keeps the larger value).
 * Returns false, leaving what it could not read untouched, when `blob` is not a valid sketch.
 */
export function mergeHll(registers: Uint8Array, blob: Uint8Array): boolean {
  if (!isHll(blob)) return false;
  if (blob[4] === DENSE) {
    if (blob.length < HEADER + DENSE_BYTES) return false;
    // 4 registers in every 3 bytes, least significant bits first
    for (let r = 0, b = HEADER; r < HLL_REGISTERS; r += 4, b += 3) {
      const b0 = blob[b];
      const b1 = blob[b + 1];
      const b2 = blob[b + 2];
      const v0 = b0 & 63;
      const v1 = ((b0 >> 6) | (b1 << 2)) & 63;
      const v2 = ((b1 >> 4) | (b2 << 4)) & 63;
      const v3 = b2 >> 2;
      if (v0 > registers[r]) registers[r] = v0;
      if (v1 > registers[r + 1]) registers[r + 1] = v1;
      if (v2 > registers[r + 2]) registers[r + 2] = v2;
      if (v3 > registers[r + 3]) registers[r + 3] = v3;
    }
    return true;
  }
  // sparse: ZERO 00xxxxxx (run of x+1 zeros), XZERO 01xxxxxx yyyyyyyy (run of 14-bit value + 1
  // zeros), VAL 1vvvvvxx (run of x+1 registers of value v+1)
  let r = 0;
  for (let i = HEADER; i < blob.length; i++) {
    const op = blob[i];
    if ((op & 0xc0) === 0) r += (op & 0x3f) + 1;
    else if ((op & 0xc0) === 0x40) {
      if (i + 1 >= blob.length) return false;
      r += (((op & 0x3f) << 8) | blob[++i]) + 1;
    } else {
      const value = ((op >> 2) & 0x1f) + 1;
      const end = r + (op & 0x3) + 1;
      if (end > HLL_REGISTERS) return false;
      for (; r < end; r++) if (value > registers[r]) registers[r] = value;
    }
    if (r > HLL_REGISTERS) return false;
  }
  return r === HLL_REGISTERS;
}

/** Merges `from` into `into` (register-wise maximum). */
export function mergeRegisters(into: Uint8Array, from: Uint8Array): void {
  for (let r = 0; r < HLL_REGISTERS; r++) if (from[r] > into[r]) into[r] = from[r];
}

/** Whether every register of `a` is at most that of `b` (b's set then includes a's). */
export function coveredBy(a: Uint8Array, b: Uint8Array): boolean {
  for (let r = 0; r < HLL_REGISTERS; r++) if (a[r] > b[r]) return false;
  return true;
}

/** A dense Redis HyperLogLog string of `registers` (Redis accepts it back with SET). */
export function encodeDense(registers: Uint8Array): Buffer {
  const out = Buffer.alloc(HEADER + DENSE_BYTES);
  out.write('HYLL', 0, 'latin1');
  out[4] = DENSE;
  out[15] = 0x80; // cached cardinality invalid: Redis recomputes it
  for (let r = 0, b = HEADER; r < HLL_REGISTERS; r += 4, b += 3) {
    const v0 = registers[r];
    const v1 = registers[r + 1];
    const v2 = registers[r + 2];
    const v3 = registers[r + 3];
    out[b] = v0 | ((v1 & 3) << 6);
    out[b + 1] = (v1 >> 2) | ((v2 & 15) << 4);
    out[b + 2] = (v2 >> 4) | (v3 << 2);
  }
  return out;
}

/**
 * A sparse Redis HyperLogLog string of `registers` (ZERO, XZERO and VAL opcodes), or null when a
 * register is over 32 (VAL cannot hold it; practically never). Redis reads it like its own.
 */
export function encodeSparse(registers: Uint8Array): Buffer | null {
  const out: number[] = [];
  for (let r = 0; r < HLL_REGISTERS;) {
    const value = registers[r];
    let run = 1;
    if (value === 0) {
      while (r + run < HLL_REGISTERS && registers[r + run] === 0) run++;
      r += run;
      while (run > 64) {
        const len = Math.min(run, 16384);
        out.push(0x40 | ((len - 1) >> 8), (len - 1) & 0xff);
        run -= len;
      }
      if (run > 0) out.push(run - 1);
    } else {
      if (value > 32) return null;
      while (run < 4 && r + run < HLL_REGISTERS && registers[r + run] === value) run++;
      out.push(0x80 | ((value - 1) << 2) | (run - 1));
      r += run;
    }
  }
  const blob = Buffer.alloc(HEADER + out.length);
  blob.write('HYLL', 0, 'latin1');
  blob[4] = SPARSE;
  blob[15] = 0x80; // cached cardinality invalid
  blob.set(out, HEADER);
  return blob;
}

/** The smaller of the sparse and the dense encodings of `registers`. */
export function compactEncoding(registers: Uint8Array): Buffer {
  const sparse = encodeSparse(registers);
  return sparse && sparse.length < HEADER + DENSE_BYTES ? sparse : encodeDense(registers);
}

/**
 * A Redis HyperLogLog string in its smallest encoding: Redis turns a sketch dense once its
 * sparse form passes 3 000 bytes, but a dense sketch of a few thousand visitors is still 3 to 4
 * times smaller sparse, and ranges read hundreds of them. Invalid strings come back unchanged.
 */
export function compactHll(blob: Buffer): Buffer {
  if (!isHll(blob) || blob[4] === SPARSE) return blob;
  const registers = emptyRegisters();
  return mergeHll(registers, blob) ? compactEncoding(registers) : blob;
}

function sigma(x: number): number {
  if (x === 1) return Infinity;
  let y = 1;
  let z = x;
  let previous: number;
  do {
    x *= x;
    previous = z;
    z += x * y;
    y += y;
  } while (previous !== z);
  return z;
}

function tau(x: number): number {
  if (x === 0 || x === 1) return 0;
  let y = 1;
  let z = 1 - x;
  let previous: number;
  do {
    x = Math.sqrt(x);
    previous = z;
    y *= 0.5;
    z -= Math.pow(1 - x, 2) * y;
  } while (previous !== z);
  return z / 3;
}

/**
 * The estimated number of distinct elements, computed as Redis's PFCOUNT does (Ertl's improved
 * estimator, "New cardinality estimation algorithms for HyperLogLog sketches", 2017).
 */
export function countRegisters(registers: Uint8Array): number {
  const histogram = new Array<number>(Q + 2).fill(0);
  for (let r = 0; r < HLL_REGISTERS; r++) histogram[registers[r]]++;
  const m = HLL_REGISTERS;
  let z = m * tau((m - histogram[Q + 1]) / m);
  for (let j = Q; j >= 1; j--) {
    z += histogram[j];
    z *= 0.5;
  }
  z += m * sigma(histogram[0] / m);
  return Math.round((ALPHA_INF * m * m) / z);
}

/** Distinct elements of the union of Redis HyperLogLog strings (invalid ones are skipped). */
export function countUnion(blobs: Iterable<Uint8Array | null | undefined>): number {
  const registers = emptyRegisters();
  let any = false;
  for (const blob of blobs) if (blob && mergeHll(registers, blob)) any = true;
  return any ? countRegisters(registers) : 0;
}
