import { ChildProcess, spawn } from 'node:child_process';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { connect, Socket } from 'node:net';

import { verifyWebhookSignature } from '@app/webhooks';

/** One request a receiver got. */
export interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  raw: string;
  body: { id: string; event: string; created: string; data: Record<string, unknown> };
  at: number;
}

/**
 * A real HTTP receiver on loopback. `answer` decides each response (status, or 'hang' to keep
 * the request open without answering); by default 200.
 */
export class Receiver {
  readonly received: Received[] = [];
  answer: (r: Received, n: number) => number | 'hang' = () => 200;
  private server!: Server;
  private readonly hanging: ServerResponse[] = [];
  port = 0;

  static async start(): Promise<Receiver> {
    const r = new Receiver();
    r.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: Received['body'];
        try {
          body = JSON.parse(raw);
        } catch {
          body = { id: '', event: '', created: '', data: {} };
        }
        const entry: Received = {
          path: req.url ?? '',
          headers: req.headers,
          raw,
          body,
          at: Date.now(),
        };
        r.received.push(entry);
        const answer = r.answer(entry, r.received.filter((x) => x.path === entry.path).length);
        if (answer === 'hang') {
          r.hanging.push(res);
          return;
        }
        res.writeHead(answer, { 'Content-Type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    r.port = (r.server.address() as { port: number }).port;
    return r;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  on(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Whether a received request carries a valid signature for `secret` (what a receiver checks). */
export function signatureValid(r: Received, secret: string): boolean {
  return verifyWebhookSignature(
    secret,
    String(r.headers['x-webhook-timestamp']),
    r.raw,
    String(r.headers['x-webhook-signature']),
  );
}

/**
 * A loopback port that never accepts a connection: a child process listens with a backlog of 1
 * and is stopped (SIGSTOP), and two connections fill its accept queue, so the kernel drops every
 * later SYN and a client's connect hangs (like a receiver behind a firewall that drops packets).
 */
export class Blackhole {
  port = 0;
  private child!: ChildProcess;
  private readonly fillers: Socket[] = [];

  static async start(): Promise<Blackhole> {
    const b = new Blackhole();
    b.child = spawn(
      process.execPath,
      [
        '-e',
        `const s = require('node:net').createServer(() => undefined);
         s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => console.log(s.address().port));`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    b.port = await new Promise<number>((resolve, reject) => {
      b.child.once('error', reject);
      b.child.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
    });
    b.child.kill('SIGSTOP');
    for (let i = 0; i < 2; i++) {
      const socket = connect(b.port, '127.0.0.1');
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', resolve);
        socket.once('error', reject);
      });
      b.fillers.push(socket);
    }
    return b;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  close(): void {
    for (const s of this.fillers) s.destroy();
    this.child.kill('SIGKILL');
  }
}
