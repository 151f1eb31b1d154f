import { parseLsn, replicaLagSeconds } from './replica-lag';

describe('replicaLagSeconds', () => {
  const s = (at: number, lsn: string) => ({ at, lsn: parseLsn(lsn) });

  it('parses LSNs as 64-bit positions', () => {
    expect(parseLsn('0/10')).toBe(16n);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) | 0xb374d848n);
    expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true);
  });

  it('is 0 once the standby has replayed what the latest sample saw, however idle the primary', () => {
    const idle = [s(0, '0/100'), s(60_000, '0/100'), s(120_000, '0/100')];
    expect(replicaLagSeconds(idle, parseLsn('0/100'), 121_000)).toBe(0);
  });

  it('is the age of the latest sample the standby has fully replayed', () => {
    const samples = [s(1000, '0/100'), s(2000, '0/100'), s(3000, '0/200'), s(4000, '0/300')];
    expect(replicaLagSeconds(samples, parseLsn('0/100'), 4500)).toBe(2.5);
    expect(replicaLagSeconds(samples, parseLsn('0/250'), 4500)).toBe(1.5);
  });

  it('behind every sample: the age of the oldest (at least that much)', () => {
    const samples = [s(1000, '0/100'), s(2000, '0/200')];
    expect(replicaLagSeconds(samples, parseLsn('0/50'), 9000)).toBe(8);
  });

  it('unknown without samples', () => {
    expect(replicaLagSeconds([], parseLsn('0/50'), 9000)).toBeNull();
  });
});
