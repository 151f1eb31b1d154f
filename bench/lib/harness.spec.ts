import { line, pooledPercentile, RunResult } from './harness';

/** A run whose distribution is `latencies` ([µs, requests]). */
const run = (latencies: Array<[number, number]>): RunResult =>
  ({ latencies, requests: latencies.reduce((n, [, c]) => n + c, 0) }) as RunResult;

describe('pooledPercentile', () => {
  it('ranks one run as wrk does: the least latency with p % of the requests at or under it', () => {
    // 100 requests: 1..100 ms, one each
    const one = run(Array.from({ length: 100 }, (_, i) => [(i + 1) * 1000, 1] as [number, number]));
    expect(pooledPercentile([one], 50)).toBe(50);
    expect(pooledPercentile([one], 99)).toBe(99);
    expect(pooledPercentile([one], 100)).toBe(100);
  });

  it('weighs each run by its requests: a short run of slow requests moves the p99 by its share', () => {
    // 990 fast requests in one run, 10 slow ones in another: the p99 is the 990th, a fast one
    const fast = run([[1000, 990]]);
    const slow = run([[50_000, 10]]);
    expect(pooledPercentile([fast, slow], 99)).toBe(1);
    expect(pooledPercentile([fast, slow], 99.1)).toBe(50);
    // the slow run alone, or weighed as much as the fast one, decides it
    expect(pooledPercentile([slow], 99)).toBe(50);
    expect(pooledPercentile([run([[1000, 10]]), slow], 99)).toBe(50);
  });

  it('adds the runs of one latency together, whatever the order of their entries', () => {
    const a = run([
      [3000, 2],
      [1000, 5],
    ]);
    const b = run([
      [2000, 2],
      [1000, 1],
    ]);
    // 6 at 1 ms, 2 at 2 ms, 2 at 3 ms
    expect(pooledPercentile([a, b], 60)).toBe(1);
    expect(pooledPercentile([a, b], 61)).toBe(2);
    expect(pooledPercentile([a, b], 81)).toBe(3);
  });

  it('holds a rank that the shares of wrk percentile steps reach up to a rounding error', () => {
    // a run of 1 074 requests as runWrk reads it: percentile steps of 0.5 up to 90, 0.01 past it,
    // each step's share of the requests at its own latency (step k at k ms); summed as floats,
    // the shares up to the 50th, 90th and 99th fall short of their exact rank
    let below = 0;
    const steps = Array.from({ length: 1180 }, (_, i) => {
      const k = i + 1;
      const p = k <= 180 ? k / 2 : (9000 + k - 180) / 100;
      const share = ((p - below) / 100) * 1074;
      below = p;
      return [k * 1000, share] as [number, number];
    });
    expect(pooledPercentile([run(steps)], 50)).toBe(100);
    expect(pooledPercentile([run(steps)], 90)).toBe(180);
    expect(pooledPercentile([run(steps)], 99)).toBe(1080);
  });

  it('refuses a run measured without its distribution', () => {
    expect(() => pooledPercentile([{ requests: 5 } as RunResult], 99)).toThrow(/latencies/);
  });
});

describe('line', () => {
  const figures = {
    requests: 1000,
    rps: 100,
    p50Ms: 1,
    p99Ms: 2,
    p999Ms: 3,
    errors: 0,
    serverUs: 10,
    serverUtil: 0.5,
    storesUs: 0,
    generatorUtil: 0.1,
    core0Busy: 0.5,
    core1Busy: 0.1,
    verdict: 'ok',
    tally: {},
  } as unknown as RunResult;
  const quiet = { ioStallMs: 0.4, steal: 0.001, diskReads: 0, diskReadMs: 0 };

  it('says nothing of the machine when it stalled on nothing', () => {
    expect(line('run', { ...figures, host: quiet })).not.toContain('host:');
  });

  it('names what the machine did during the run: I/O stall, steal, disk reads and their time', () => {
    const text = line('run', {
      ...figures,
      host: { ioStallMs: 835.2, steal: 0.023, diskReads: 400, diskReadMs: 200 },
    });
    expect(text).toMatch(
      /host: I\/O stall 835 ms, steal 2\.3 %, 400 disk reads \(0\.50 ms each\)$/,
    );
    expect(line('run', { ...figures, host: { ...quiet, steal: 0.05 } })).toMatch(
      /host: steal 5\.0 %$/,
    );
  });
});
