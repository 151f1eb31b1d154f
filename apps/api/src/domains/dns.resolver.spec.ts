import { createSocket, Socket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';

import { DnsLookupError, DnsResolver } from './dns.resolver';

/** A resolver that asks a local UDP server instead of the system's. */
class LocalDns extends DnsResolver {
  constructor(private readonly port: number) {
    super();
  }
  protected createResolver(timeoutMs: number): Resolver {
    const resolver = super.createResolver(timeoutMs);
    resolver.setServers([`127.0.0.1:${this.port}`]);
    return resolver;
  }
}

async function udpServer(
  onQuery: (msg: Buffer, reply: (b: Buffer) => void) => void,
): Promise<Socket> {
  const socket = createSocket('udp4');
  socket.on('message', (msg, rinfo) =>
    onQuery(msg, (b) => socket.send(b, rinfo.port, rinfo.address)),
  );
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return socket;
}

/** A DNS response to `query` with the given RCODE and no answers. */
function emptyAnswer(query: Buffer, rcode: number): Buffer {
  const out = Buffer.from(query);
  out[2] = 0x80 | (query[2] & 0x01); // QR = response, keep RD
  out[3] = 0x80 | rcode; // RA, RCODE
  out.writeUInt16BE(0, 6); // ANCOUNT
  out.writeUInt16BE(0, 8);
  out.writeUInt16BE(0, 10);
  return out;
}

describe('DnsResolver', () => {
  let socket: Socket | undefined;
  afterEach(() => socket?.close());

  it('gives up with ETIMEOUT when the DNS server never answers, within the timeout', async () => {
    socket = await udpServer(() => undefined);
    const started = Date.now();
    const err = await new LocalDns(socket.address().port)
      .lookup('brand.example.com', 400)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DnsLookupError);
    expect((err as DnsLookupError).code).toBe('ETIMEOUT');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('answers empty lists for a name that does not exist (NXDOMAIN)', async () => {
    socket = await udpServer((msg, reply) => reply(emptyAnswer(msg, 3)));
    await expect(
      new LocalDns(socket.address().port).lookup('nonexistent.invalid', 1000),
    ).resolves.toEqual({
      a: [],
      aaaa: [],
      cname: [],
    });
  });

  it('reports a failing server by its code (SERVFAIL)', async () => {
    socket = await udpServer((msg, reply) => reply(emptyAnswer(msg, 2)));
    const err = await new LocalDns(socket.address().port)
      .lookup('brand.example.com', 1000)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DnsLookupError);
    expect((err as DnsLookupError).code).toBe('ESERVFAIL');
  });
});
