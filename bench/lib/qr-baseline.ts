/**
 * The bare pipeline `bench:qr` measures the worker against, in a process of its own (forked by
 * `runQrBaseline`): the same library calls as the worker's renderer with nothing around them
 * (no queue, database or files), under the worker's conditions: libvips as the worker sets it
 * (no operation cache, one thread per pipeline: QrRenderer) and the worker's niceness
 * (WORKER_NICE). A process of its own, so lowering its priority leaves the bench's client at
 * nice 0, and its CPU time is the pipeline's alone.
 */
import { fork } from 'node:child_process';

import QRCode from 'qrcode';
import sharp from 'sharp';

import { lowerPriority } from '../../apps/worker/src/priority';

/** Codes rendered before the measured ones. */
const WARM_UP = 50;

export interface BaselineJob {
  links: string[];
  /** The logo's PNG bytes, base64. */
  logo: string;
  nice: number;
  concurrency: number;
}

export interface BaselineResult {
  seconds: number;
  perImage: number[];
  cpuPerImage: number;
}

/** Runs the baseline over `job` in a forked process and returns its figures. */
export function runQrBaseline(job: BaselineJob): Promise<BaselineResult> {
  const child = fork(__filename, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (result: BaselineResult) => {
      child.kill();
      resolve(result);
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the QR baseline exited with ${code}`)));
    child.send(job);
  });
}

async function render(job: BaselineJob): Promise<BaselineResult> {
  sharp.cache(false);
  sharp.concurrency(1);
  lowerPriority(job.nice);
  const logo = Buffer.from(job.logo, 'base64');
  const box = Math.round(512 * 0.2);
  const tileSize = Math.round(512 * 0.24);
  const logoPng = await sharp(logo).resize(box, box, { fit: 'inside' }).png().toBuffer();
  const tile = await sharp({
    create: { width: tileSize, height: tileSize, channels: 4, background: '#ffffff' },
  })
    .composite([{ input: logoPng, gravity: 'centre' }])
    .png()
    .toBuffer();
  const one = async (link: string) => {
    const svg = await QRCode.toString(link, {
      type: 'svg',
      errorCorrectionLevel: 'H',
      margin: 2,
      width: 512,
      color: { dark: '#000000ff', light: '#ffffffff' },
    });
    await sharp(Buffer.from(svg))
      .composite([{ input: tile, gravity: 'centre' }])
      .png()
      .toBuffer();
  };
  // Warm-up, not measured: the worker it is compared with has rendered codes before each round.
  await inFlight(job.concurrency, job.links.slice(0, WARM_UP), one);
  const perImage: number[] = [];
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  await inFlight(job.concurrency, job.links, async (link) => {
    const t0 = performance.now();
    await one(link);
    perImage.push(performance.now() - t0);
  });
  const cpu = process.cpuUsage(cpu0);
  return {
    seconds: (performance.now() - started) / 1000,
    perImage,
    cpuPerImage: (cpu.user + cpu.system) / 1000 / job.links.length,
  };
}

/** Runs `work` over `items` with `concurrency` of them in flight. */
async function inFlight<T>(
  concurrency: number,
  items: T[],
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

if (require.main === module && process.send) {
  process.once('message', (job: BaselineJob) => {
    render(job).then(
      (result) => process.send?.(result),
      (err: Error) => {
        console.error(err);
        process.exit(1);
      },
    );
  });
}
