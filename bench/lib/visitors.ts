/**
 * The mix of visitors the redirect benches send (bench:redirect's "mixed visitors", bench:fold):
 * four browsers' user agents (every one counted), eight public addresses of several networks
 * (sent as X-Forwarded-For from loopback, which the api trusts as its proxy) and four language
 * lists. Request i gets agent i mod 4, language (i >> 2) mod 4 and address (i >> 4) mod 8: 128
 * visitor profiles in turn.
 */
export const VISITOR_AGENTS = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (PlayStation; PlayStation 5/2.26) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.0 Safari/605.1.15',
  'Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/4.0 Chrome/76.0.3809.146 TV Safari/537.36',
];
export const VISITOR_LANGUAGES = [
  'en-US,en;q=0.9',
  'sv-SE,sv;q=0.8,en;q=0.5',
  'pt-BR',
  'zh-CN,zh;q=0.9',
];
/** Public addresses of several networks (mostly outside bench:redirect's 50 rule countries). */
export const VISITOR_ADDRESSES = [
  '8.8.8.8',
  '1.1.1.1',
  '81.2.69.160',
  '175.45.176.1',
  '41.0.0.1',
  '200.0.0.1',
  '5.62.60.1',
  '31.13.64.1',
];

/** The headers of the i-th request of the mix. */
export function visitorHeaders(i: number): Record<string, string> {
  return {
    'User-Agent': VISITOR_AGENTS[i % VISITOR_AGENTS.length],
    'Accept-Language': VISITOR_LANGUAGES[(i >> 2) % VISITOR_LANGUAGES.length],
    'X-Forwarded-For': VISITOR_ADDRESSES[(i >> 4) % VISITOR_ADDRESSES.length],
  };
}
