import { randomBytes } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

import { Injectable } from '@nestjs/common';

import { AppConfig } from '@app/config';
import { QrImageFormat, qrImageDir, qrImagePath } from '@app/qr';

/** Temporary files written next to their final names, waiting for `commit`. */
export interface StagedImages {
  code: string;
  files: Array<{ temp: string; final: string }>;
}

const FORMATS: QrImageFormat[] = ['png', 'svg'];

/**
 * The rendered images under `<STORAGE_DIR>/qr/<code>.png|.svg`. Writes are atomic: each file is
 * written to a temporary name in the same folder and renamed over the old one, so a reader sees
 * the old image or the new one, never a partial file.
 */
@Injectable()
export class QrImageStore {
  private readonly storage: string;
  private readonly dir: string;
  private ready?: Promise<void>;

  constructor(config: AppConfig) {
    this.storage = config.STORAGE_DIR;
    this.dir = qrImageDir(config.STORAGE_DIR);
  }

  async stage(code: string, images: Record<QrImageFormat, Buffer | string>): Promise<StagedImages> {
    const tag = randomBytes(6).toString('hex');
    const staged: StagedImages = {
      code,
      files: FORMATS.map((format) => ({
        temp: join(this.dir, `.${code}.${tag}.${format}.tmp`),
        final: qrImagePath(this.storage, code, format),
      })),
    };
    // Synchronous on purpose: two small files (tens of kB) into the page cache take tens of
    // microseconds, while each asynchronous open / write / close / rename is a round trip
    // through the thread pool that sharp's renders keep busy (measured: about 0.7 ms of the
    // worker's CPU per image, a third of everything it does besides rendering).
    const write = async () => {
      for (let i = 0; i < staged.files.length; i++)
        writeFileSync(staged.files[i].temp, images[FORMATS[i]], { flag: 'wx', mode: 0o644 });
    };
    try {
      await this.folder();
      await write().catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
        // the folder was removed since it was made: make it again, once
        this.ready = undefined;
        await this.discard(staged);
        await this.folder();
        await write();
      });
    } catch (err) {
      await this.discard(staged);
      throw err;
    }
    return staged;
  }

  /** Creates the image folder once per process. */
  private folder(): Promise<void> {
    this.ready ??= mkdir(this.dir, { recursive: true }).then(
      () => undefined,
      (err: Error) => {
        this.ready = undefined;
        throw err;
      },
    );
    return this.ready;
  }

  async commit(staged: StagedImages): Promise<void> {
    for (const f of staged.files) renameSync(f.temp, f.final);
  }

  async discard(staged: StagedImages): Promise<void> {
    await Promise.all(staged.files.map((f) => unlink(f.temp).catch(() => undefined)));
  }

  async remove(code: string): Promise<void> {
    await Promise.all(
      FORMATS.map((format) =>
        unlink(qrImagePath(this.storage, code, format)).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT') throw err;
        }),
      ),
    );
  }

  /**
   * Removes temporary files older than `maxAgeMs`: what a worker killed mid-write (SIGKILL, OOM,
   * power loss) left behind. Temporary names are hidden and never served; a live render (on any
   * replica sharing the folder) finishes its files in well under the age used. Returns the count.
   */
  async removeStaleTemporaries(maxAgeMs: number, now = Date.now()): Promise<number> {
    let removed = 0;
    const names = await readdir(this.dir).catch(() => [] as string[]);
    for (const name of names) {
      if (!name.startsWith('.') || !name.endsWith('.tmp')) continue;
      const path = join(this.dir, name);
      const info = await stat(path).catch(() => null);
      if (info && now - info.mtimeMs > maxAgeMs) {
        await unlink(path).then(
          () => (removed += 1),
          () => undefined,
        );
      }
    }
    return removed;
  }
}
