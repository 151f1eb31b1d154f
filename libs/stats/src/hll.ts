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
  return walkSparse(blob, (start, end, value) => {
    for (let r = start; r < end; r++) if (value > registers[r]) registers[r] = value;
  });
}

/**
 * Walks a sparse sketch's opcodes, calling `run` for each run of registers of one value: ZERO
 * 00xxxxxx (run of x+1 zeros), XZERO 01xxxxxx yyyyyyyy (run of 14-bit value + 1 zeros), VAL
 * 1vvvvvxx (run of x+1 registers of value v+1). False when they do not cover exactly the 16 384
 * registers (the runs before the fault have been called).
 */
function walkSparse(
  blob: Uint8Array,
  run: (start: number, end: number, value: number) => void,
): boolean {
  let r = 0;
  for (let i = HEADER; i < blob.length; i++) {
    const op = blob[i];
    if ((op & 0xc0) === 0) r += (op & 0x3f) + 1;
    else if ((op & 0xc0) === 0x40) {
      if (i + 1 >= blob.length) return false;
      r += (((op & 0x3f) << 8) | blob[++i]) + 1;
    } else {
      const end = r + (op & 0x3) + 1;
      if (end > HLL_REGISTERS) return false;
      run(r, end, ((op >> 2) & 0x1f) + 1);
      r = end;
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
  return sparseBlob(out);
}

/**
 * The registers a sketch sets (the others are 0), in increasing index: what a sparse sketch
 * holds. A day's sketch of a link with a few visitors sets a few of the 16 384 registers, so its
 * merges and its encoding work on these (`fromSparse`, `unionOf`, `encodeSet`) instead of a
 * register array: the fold merges and encodes a sketch for every link it folds.
 */
export interface SetRegisters {
  index: number[];
  value: number[];
}

/** The registers a sparse Redis HyperLogLog string sets; null when it is dense or not a valid sketch. */
export function fromSparse(blob: Uint8Array): SetRegisters | null {
  if (!isHll(blob) || blob[4] !== SPARSE) return null;
  const index: number[] = [];
  const value: number[] = [];
  const whole = walkSparse(blob, (start, end, v) => {
    for (let r = start; r < end; r++) {
      index.push(r);
      value.push(v);
    }
  });
  return whole ? { index, value } : null;
}

/** The union of two sets of registers (each register keeps the larger value). */
export function unionOf(a: SetRegisters, b: SetRegisters): SetRegisters {
  const index: number[] = [];
  const value: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.index.length || j < b.index.length) {
    const ai = i < a.index.length ? a.index[i] : HLL_REGISTERS;
    const bj = j < b.index.length ? b.index[j] : HLL_REGISTERS;
    if (ai < bj) {
      index.push(ai);
      value.push(a.value[i++]);
    } else if (bj < ai) {
      index.push(bj);
      value.push(b.value[j++]);
    } else {
      index.push(ai);
      value.push(Math.max(a.value[i++], b.value[j++]));
    }
  }
  return { index, value };
}

/**
 * `encodeSparse` of the registers `set` sets, byte for byte, without the register array; null
 * when a value is over 32, or when the sparse encoding would not be the smaller one (the caller
 * then encodes the register array: `compactEncoding`).
 */
export function encodeSet(set: SetRegisters): Buffer | null {
  const out: number[] = [];
  const zeros = (run: number) => {
    if (run > 64) out.push(0x40 | ((run - 1) >> 8), (run - 1) & 0xff);
    else if (run > 0) out.push(run - 1);
  };
  const { index, value } = set;
  let r = 0;
  for (let i = 0; i < index.length;) {
    const v = value[i];
    if (v > 32) return null;
    zeros(index[i] - r);
    let run = 1;
    while (
      run < 4 &&
      i + run < index.length &&
      index[i + run] === index[i] + run &&
      value[i + run] === v
    )
      run++;
    out.push(0x80 | ((v - 1) << 2) | (run - 1));
    r = index[i] + run;
    i += run;
  }
  zeros(HLL_REGISTERS - r);
  if (HEADER + out.length >= HEADER + DENSE_BYTES) return null;
  return sparseBlob(out);
}

/**
 * The union of sketches in its smallest encoding, as `compactEncoding` of their merged registers
 * gives it (byte for byte), the work proportional to the registers they set while all are sparse
 * and the union stays sparse; invalid sketches are skipped, as `mergeHll` skips them.
 */
export function compactUnion(blobs: Uint8Array[]): Buffer {
  let set: SetRegisters | null = { index: [], value: [] };
  for (const blob of blobs) {
    const next = fromSparse(blob);
    if (!next) {
      if (isHll(blob)) {
        set = null;
        break;
      }
      continue; // not a sketch: skipped
    }
    set = unionOf(set, next);
  }
  const sparse = set && encodeSet(set);
  if (sparse) return sparse;
  const registers = emptyRegisters();
  for (const blob of blobs) mergeHll(registers, blob);
  return compactEncoding(registers);
}

/** A sparse sketch of `opcodes`: the header (cached cardinality invalid), then them. */
function sparseBlob(opcodes: number[]): Buffer {
  const blob = Buffer.alloc(HEADER + opcodes.length);
  blob.write('HYLL', 0, 'latin1');
  blob[4] = SPARSE;
  blob[15] = 0x80; // cached cardinality invalid: Redis recomputes it
  blob.set(opcodes, HEADER);
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
