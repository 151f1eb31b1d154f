import { request as httpRequest, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';

/** A visit as a live stream sends it. */
export interface LiveEvent {
  date: string;
  link: number;
  country: string;
  city: string | null;
  referrer: string;
  browser: string;
  os: string;
  device: string;
}

/**
 * A live stream (Server-Sent Events) read as it comes, or the answer that refused it. supertest
 * waits for a response's end, which a stream never reaches: this reads the head, then each
 * event, and closes the connection on demand.
 */
export interface LiveStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** the JSON body of a refusal (status other than 200) */
  body: { error?: number; message?: string } & Record<string, unknown>;
  /** everything received so far (a stream) */
  raw: () => string;
  events: LiveEvent[];
  /** comment lines received (`connected`, `heartbeat`) */
  comments: string[];
  /** the `end` event's data, once the server ended the stream */
  ended: { reason: string } | null;
  /** the connection is over (the server ended it, or close() was called) */
  closed: boolean;
  /** resolves once `check()` holds (rejects after `ms`) */
  until: (check: () => boolean, ms?: number) => Promise<void>;
  close: () => void;
}

/** Opens `path` on the test server with `headers`; resolves at a refusal's end or a stream's first line. */
export async function openLive(
  server: Server,
  path: string,
  headers: Record<string, string>,
): Promise<LiveStream> {
  // supertest listens per request; a stream needs the server itself listening (once)
  if (!server.listening)
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    let text = '';
    let pending = '';
    const stream: LiveStream = {
      status: 0,
      headers: {},
      body: {},
      raw: () => text,
      events: [],
      comments: [],
      ended: null,
      closed: false,
      until: async (check, ms = 5000) => {
        const deadline = Date.now() + ms;
        while (!check()) {
          if (Date.now() > deadline) throw new Error(`live stream: condition not met in ${ms} ms`);
          await new Promise((r) => setTimeout(r, 10));
        }
      },
      close: () => {
        stream.closed = true;
        req.destroy();
      },
    };
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers }, (res) => {
      stream.status = res.statusCode ?? 0;
      stream.headers = res.headers;
      res.setEncoding('utf8');
      if (stream.status !== 200) {
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          try {
            stream.body = JSON.parse(text);
          } catch {
            stream.body = { raw: text };
          }
          stream.closed = true;
          resolve(stream);
        });
        return;
      }
      let first = true;
      res.on('data', (chunk: string) => {
        text += chunk;
        pending += chunk;
        let at: number;
        while ((at = pending.indexOf('\n\n')) >= 0) {
          const block = pending.slice(0, at);
          pending = pending.slice(at + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) stream.comments.push(line.slice(1).trim());
            else if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).trim());
          }
          if (!data.length) continue;
          const value = JSON.parse(data.join('\n'));
          if (event === 'end') stream.ended = value;
          else stream.events.push(value);
        }
        if (first) {
          first = false;
          resolve(stream);
        }
      });
      res.on('close', () => (stream.closed = true));
      res.on('error', () => (stream.closed = true));
    });
    req.on('error', (err) => {
      stream.closed = true;
      if (!stream.status) reject(err);
    });
    req.end();
  });
}

/**
 * What supertest would have given for a call that may open a stream: the status and JSON body
 * of a refusal, or 200 and `{}` once a stream opened (closed at once).
 */
export async function liveAnswer(
  server: Server,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown>; headers: IncomingHttpHeaders }> {
  const s = await openLive(server, path, headers);
  s.close();
  return { status: s.status, body: s.status === 200 ? {} : s.body, headers: s.headers };
}
