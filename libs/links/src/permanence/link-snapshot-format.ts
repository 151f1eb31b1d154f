import { createHmac, timingSafeEqual } from 'node:crypto';
import { FileHandle, mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { ResolvedLink } from '../read-model/resolved-link';

/**
 * The link snapshot (docs/link-permanence.md): every short code served at `/<alias>` and every
 * branded domain, as the redirector needs them, in one signed file the worker rewrites and every
 * api process reads to answer while Postgres and Redis are both unreachable.
 *
 * The file is UTF-8 text, one record a line:
 *
 *     LMSNAP 1 <created, epoch ms>
 *     B<blocklist entry>            (BLOCKLIST_FILE and the admins' entries)
 *     H<host>\t<JSON: id, redirectRoot, redirect404, verified, rootBlocked, notFoundBlocked>
 *     L<alias>\t<counted clicks>\t<JSON: the link, compactLink of ResolvedLink>
 *     E<links> <hosts>
 *     S<HMAC-SHA256 of every byte before this line, hex>
 *
 * JSON never holds a raw tab or line feed, and aliases, hosts and entries have none (the writer
 * skips one that would), so lines and fields split on those bytes. The blocklist travels whole
 * (a few entries) rather than as a flag per link: screening every link's destinations costs
 * ~20 µs a URL, paid by the api for the links an outage asks for rather than by every write. The link's JSON is the read model
 * itself (LINK_FIELDS), so a link option added there is carried with no change here.
 */
export const SNAPSHOT_MAGIC = 'LMSNAP';
export const SNAPSHOT_VERSION = 1;

/** The Redis key segment of a link's click-limit counter (ClickLimiter), which the snapshot reads. */
export const CLICK_LIMIT_KEY = 'clicklimit';

/** Where the snapshot lives under STORAGE_DIR. */
export function snapshotPath(storageDir: string): string {
  return join(storageDir, 'snapshot', 'links.snapshot');
}

/**
 * The signing key: HMAC-SHA256 of a fixed label keyed with APP_SECRET. The secret itself never
 * signs anything, and this key signs nothing else.
 */
export function snapshotKey(secret: string): Buffer {
  return createHmac('sha256', secret).update('link-snapshot-signing-key-v1').digest();
}

/** A branded domain as the snapshot holds it. */
export interface SnapshotHost {
  id: number;
  redirectRoot: string;
  redirect404: string;
  verified: boolean;
  /** redirectRoot / redirect404 matched the blocklist when the snapshot was written. */
  rootBlocked: boolean;
  notFoundBlocked: boolean;
}

/** A short code as the snapshot holds it. */
export interface SnapshotLink {
  link: ResolvedLink;
  /** The click-limit counter then (0 when the link has no limit or Redis was not read). */
  clicks: number;
}

/** The snapshot is unusable: unreadable, of another format, or its signature fails. */
export class SnapshotError extends Error {}

const TAB = 0x09;
const LF = 0x0a;
/** Bytes gathered before a write (and an HMAC update). */
const CHUNK = 1 << 20;
const FORBIDDEN = /[\t\n\r]/;

/**
 * Writes a snapshot file: lines gathered in memory up to CHUNK bytes, then written (awaited) and
 * fed to the HMAC, into a temporary file beside the target; `commit` adds the counts and the
 * signature, syncs, closes and renames it over the target (readers see the old file or the new
 * one, never a part). `abort` removes the temporary file.
 */
export class SnapshotFileWriter {
  private readonly hmac;
  private parts: string[] = [];
  private size = 0;
  private bytes = 0;
  links = 0;
  hosts = 0;
  entries = 0;
  skipped = 0;

  private constructor(
    private readonly file: FileHandle,
    private readonly tmp: string,
    private readonly target: string,
    key: Buffer,
  ) {
    this.hmac = createHmac('sha256', key);
  }

  static async open(target: string, key: Buffer, createdAt: number): Promise<SnapshotFileWriter> {
    await mkdir(dirname(target), { recursive: true });
    const tmp = `${target}.${process.pid}.${Date.now().toString(36)}.tmp`;
    const writer = new SnapshotFileWriter(await open(tmp, 'w', 0o600), tmp, target, key);
    writer.push(`${SNAPSHOT_MAGIC} ${SNAPSHOT_VERSION} ${createdAt}\n`);
    return writer;
  }

  /** The blocklist as of the snapshot (write it before the links). */
  blocklist(entries: Iterable<string>): void {
    for (const entry of entries) {
      if (FORBIDDEN.test(entry)) {
        this.skipped += 1;
        continue;
      }
      this.entries += 1;
      this.push(`B${entry}\n`);
    }
  }

  host(host: string, value: SnapshotHost): void {
    if (FORBIDDEN.test(host)) {
      this.skipped += 1;
      return;
    }
    this.hosts += 1;
    this.push(
      `H${host}\t${JSON.stringify({
        id: value.id,
        redirectRoot: value.redirectRoot,
        redirect404: value.redirect404,
        verified: value.verified,
        rootBlocked: value.rootBlocked,
        notFoundBlocked: value.notFoundBlocked,
      })}\n`,
    );
  }

  /** `link`: the compact read model (compactLink). */
  link(alias: string, link: Partial<ResolvedLink>, clicks: number): void {
    // under 3 characters: never served as a short link (isAliasShaped)
    if (alias.length < 3 || FORBIDDEN.test(alias)) {
      this.skipped += 1;
      return;
    }
    this.links += 1;
    this.push(`L${alias}\t${clicks}\t${JSON.stringify(link)}\n`);
  }

  /** Writes what is gathered once it reaches CHUNK bytes (call it between batches). */
  async flush(force = false): Promise<void> {
    if (!this.parts.length || (!force && this.size < CHUNK)) return;
    const buf = Buffer.from(this.parts.join(''), 'utf8');
    this.parts = [];
    this.size = 0;
    this.hmac.update(buf);
    this.bytes += buf.length;
    await this.file.write(buf);
  }

  /** Finishes the file and puts it in place; the bytes written. */
  async commit(): Promise<number> {
    this.push(`E${this.links} ${this.hosts}\n`);
    await this.flush(true);
    const signature = Buffer.from(`S${this.hmac.digest('hex')}\n`, 'utf8');
    await this.file.write(signature);
    await this.file.sync();
    await this.file.close();
    await rename(this.tmp, this.target);
    return this.bytes + signature.length;
  }

  async abort(): Promise<void> {
    await this.file.close().catch(() => undefined);
    await rm(this.tmp, { force: true });
  }

  private push(line: string): void {
    this.parts.push(line);
    this.size += line.length;
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The index is SHARDS maps, by a hash of the alias's last characters: one Map of a million
 * entries grows by rehashing all of them at once (a pause of hundreds of milliseconds on a busy
 * machine, every request waiting); a shard's growth is a thirty-second of that.
 */
const SHARDS = 32;
function shardOf(alias: string): number {
  const n = alias.length;
  return (
    (alias.charCodeAt(n - 1) * 961 + alias.charCodeAt(n - 2) * 31 + alias.charCodeAt(n - 3)) &
    (SHARDS - 1)
  );
}

/**
 * A loaded snapshot: the file's bytes, an index of alias → line offset (links are decoded when
 * asked for, so a million links cost the file's size plus the index), and the hosts decoded.
 */
export class SnapshotIndex {
  constructor(
    readonly createdAt: number,
    private readonly data: Buffer,
    private readonly offsets: Array<Map<string, number>>,
    readonly hosts: Map<string, SnapshotHost>,
    /** The blocklist entries when it was written. */
    readonly blocklist: string[],
  ) {}

  get links(): number {
    return this.offsets.reduce((sum, shard) => sum + shard.size, 0);
  }

  get bytes(): number {
    return this.data.length;
  }

  /** The short code, or null when the snapshot has none of that alias. */
  link(alias: string): SnapshotLink | null {
    if (alias.length < 3) return null;
    const at = this.offsets[shardOf(alias)].get(alias);
    if (at === undefined) return null;
    const data = this.data;
    const t1 = data.indexOf(TAB, at);
    const t2 = data.indexOf(TAB, t1 + 1);
    const end = data.indexOf(LF, t2 + 1);
    return {
      clicks: Number(data.toString('latin1', t1 + 1, t2)) || 0,
      link: JSON.parse(data.toString('utf8', t2 + 1, end)) as ResolvedLink,
    };
  }
}

/** Bytes hashed, and lines indexed, per turn of the event loop while reading. */
const HASH_SLICE = 4 << 20;
const LINES_PER_TURN = 10_000;

/**
 * Checks a snapshot's signature and indexes it, a slice per turn of the event loop (a process
 * reading it keeps answering requests). Throws SnapshotError when the file is not a complete
 * snapshot or the signature fails (one byte changed anywhere).
 */
export async function readSnapshot(data: Buffer, key: Buffer): Promise<SnapshotIndex> {
  if (data.length < 2 || data[data.length - 1] !== LF)
    throw new SnapshotError('incomplete file (no final line)');
  const sigStart = data.lastIndexOf(LF, data.length - 2) + 1;
  const sigLine = data.toString('latin1', sigStart, data.length - 1);
  if (sigStart === 0 || !/^S[0-9a-f]{64}$/.test(sigLine))
    throw new SnapshotError('no signature line');
  const hmac = createHmac('sha256', key);
  for (let at = 0; at < sigStart; at += HASH_SLICE) {
    if (at) await nextTurn();
    hmac.update(data.subarray(at, Math.min(at + HASH_SLICE, sigStart)));
  }
  const expected = hmac.digest();
  if (!timingSafeEqual(expected, Buffer.from(sigLine.slice(1), 'hex')))
    throw new SnapshotError('bad signature');

  const headerEnd = data.indexOf(LF);
  const header = /^LMSNAP (\d+) (\d+)$/.exec(data.toString('latin1', 0, headerEnd));
  if (!header || Number(header[1]) !== SNAPSHOT_VERSION)
    throw new SnapshotError('not a version 1 snapshot');
  const offsets = Array.from({ length: SHARDS }, () => new Map<string, number>());
  let links = 0;
  const hosts = new Map<string, SnapshotHost>();
  const blocklist: string[] = [];
  let counts: [number, number] | null = null;
  let lines = 0;
  for (let at = headerEnd + 1; at < sigStart;) {
    const end = data.indexOf(LF, at);
    if (end < 0 || end > sigStart) throw new SnapshotError(`unterminated record at byte ${at}`);
    const kind = data[at];
    if (kind === 0x4c /* L */) {
      const tab = data.indexOf(TAB, at);
      const alias = data.toString('latin1', at + 1, tab);
      if (alias.length >= 3) {
        offsets[shardOf(alias)].set(alias, at);
        links += 1;
      }
    } else if (kind === 0x48 /* H */) {
      const tab = data.indexOf(TAB, at);
      hosts.set(
        data.toString('utf8', at + 1, tab),
        JSON.parse(data.toString('utf8', tab + 1, end)) as SnapshotHost,
      );
    } else if (kind === 0x42 /* B */) {
      blocklist.push(data.toString('utf8', at + 1, end));
    } else if (kind === 0x45 /* E */) {
      const [links, hostCount] = data
        .toString('latin1', at + 1, end)
        .split(' ')
        .map(Number);
      counts = [links, hostCount];
    } else throw new SnapshotError(`unknown record at byte ${at}`);
    at = end + 1;
    if (++lines % LINES_PER_TURN === 0) await nextTurn();
  }
  if (!counts || counts[0] !== links || counts[1] !== hosts.size)
    throw new SnapshotError('counts do not match the records');
  return new SnapshotIndex(Number(header[2]), data, offsets, hosts, blocklist);
}
