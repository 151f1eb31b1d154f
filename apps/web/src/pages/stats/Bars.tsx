import { ReactNode, useId } from 'react';

import type { Schemas } from '../../api';
import { formatCount } from './range';

type Stats = Schemas['RangeStatsView'];

export interface Bar {
  key: string;
  label: ReactNode;
  value: number;
}

/**
 * A dimension's labels as horizontal bars, largest first: plain HTML, the count as text next to
 * each bar (the bar itself is decoration), in a region named by its heading.
 */
export function Bars(props: { title: string; bars: Bar[]; empty?: string }) {
  const id = useId();
  const max = Math.max(1, ...props.bars.map((b) => b.value));
  return (
    <section className="dimension" aria-labelledby={id}>
      <h2 id={id}>{props.title}</h2>
      {props.bars.length === 0 ? (
        <p className="hint">{props.empty ?? 'No visits in this range.'}</p>
      ) : (
        <ol className="bars">
          {props.bars.map((b) => (
            <li key={b.key}>
              <span className="bar-label">{b.label}</span>
              <span className="bar-value">{formatCount(b.value)}</span>
              <span className="bar-track" aria-hidden="true">
                <span className="bar-fill" style={{ width: `${(b.value / max) * 100}%` }} />
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** A `top*` map of the API (label → count as a string) as bars, largest first. */
function barsOf(map: Record<string, string>, name: (label: string) => string = (l) => l): Bar[] {
  return Object.entries(map)
    .map(([label, count]) => ({ key: label, label: name(label), value: Number(count) || 0 }))
    .sort((a, b) => b.value - a.value);
}

const DEVICES: Record<string, string> = {
  mobile: 'Mobile',
  tablet: 'Tablet',
  desktop: 'Desktop',
  other: 'Other',
};

const NETWORKS: Array<{ key: keyof Schemas['SocialCountView']; name: string }> = [
  { key: 'network01', name: 'Facebook' },
  { key: 'network02', name: 'X (Twitter)' },
  { key: 'network03', name: 'LinkedIn' },
];

/** `fr` → `French (fr)`; `Unknown` and codes the browser cannot name as they are. */
function languageName(code: string): string {
  try {
    const names = new Intl.DisplayNames(undefined, { type: 'language' });
    const name = /^[a-z]{2,3}$/i.test(code) ? names.of(code) : undefined;
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}

/** Every dimension the API answers for a range, each as a region of bars. */
export function Dimensions(props: { stats: Stats }) {
  const s = props.stats;
  const social = NETWORKS.map((n) => ({ key: n.key, label: n.name, value: s.socialCount[n.key] }))
    .filter((b) => b.value > 0)
    .sort((a, b) => b.value - a.value);
  return (
    <div className="dimensions">
      <Bars title="Countries" bars={barsOf(s.topCountries)} />
      <Bars title="Referrers" bars={barsOf(s.topReferrers)} />
      <Bars title="Browsers" bars={barsOf(s.topBrowsers)} />
      <Bars title="Operating systems" bars={barsOf(s.topOs)} />
      <Bars title="Devices" bars={barsOf(s.topDevices, (d) => DEVICES[d] ?? d)} />
      <Bars title="Languages" bars={barsOf(s.topLanguages, languageName)} />
      <Bars title="Cities" bars={barsOf(s.topCities)} />
      <Bars title="Regions" bars={barsOf(s.topRegions)} />
      <Bars title="UTM sources" bars={barsOf(s.topUtmSources)} />
      <Bars title="UTM mediums" bars={barsOf(s.topUtmMediums)} />
      <Bars title="UTM campaigns" bars={barsOf(s.topUtmCampaigns)} />
      <Bars title="Referrer URLs" bars={barsOf(s.topReferrerUrls)} />
      <Bars title="Device models" bars={barsOf(s.topDeviceModels)} />
      <Bars
        title="Social networks"
        bars={social}
        empty="No visits from social networks in this range."
      />
    </div>
  );
}
