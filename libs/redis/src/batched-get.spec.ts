import type Redis from 'ioredis';
import type { Cluster } from 'ioredis';

import { BatchedGet } from './batched-get';
import { keySlot } from './key-slot';

/** A stand-in client that records the commands it receives and answers from a map. */
function fakeClient(values: Record<string, string>, fail?: Error) {
  const calls: Array<{ command: 'get' | 'mget'; keys: string[] }> = [];
  const answer = <T>(value: T) => (fail ? Promise.reject(fail) : Promise.resolve(value));
  const client = {
    get: (key: string) => {
      calls.push({ command: 'get', keys: [key] });
      return answer(values[key] ?? null);
    },
    mget: (keys: string[]) => {
      calls.push({ command: 'mget', keys: [...keys] });
      return answer(keys.map((k) => values[k] ?? null));
    },
  };
  return { client: client as unknown as Redis, calls };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('BatchedGet', () => {
  it('sends the GETs of one turn as one MGET and answers each caller with its own key', async () => {
    const { client, calls } = fakeClient({ a: '1', c: '3' });
    const gets = new BatchedGet(client);
    const answers = Promise.all([gets.get('a'), gets.get('b'), gets.get('c'), gets.get('a')]);
    expect(calls).toEqual([]); // nothing leaves before the turn ends
    await expect(answers).resolves.toEqual(['1', null, '3', '1']);
    expect(calls).toEqual([{ command: 'mget', keys: ['a', 'b', 'c', 'a'] }]);
  });

  it('sends a lone key as a plain GET', async () => {
    const { client, calls } = fakeClient({ a: '1' });
    await expect(new BatchedGet(client).get('a')).resolves.toBe('1');
    expect(calls).toEqual([{ command: 'get', keys: ['a'] }]);
  });

  it('starts a new batch on the next turn without waiting for the one in flight', async () => {
    const { client, calls } = fakeClient({ a: '1', b: '2' });
    const gets = new BatchedGet(client);
    const first = gets.get('a');
    await nextTurn();
    const second = gets.get('b');
    await expect(Promise.all([first, second])).resolves.toEqual(['1', '2']);
    expect(calls.map((c) => c.keys)).toEqual([['a'], ['b']]);
  });

  it('splits a long turn into MGETs of at most maxKeys keys', async () => {
    const values = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`k${i}`, `v${i}`]));
    const { client, calls } = fakeClient(values);
    const gets = new BatchedGet(client, 3);
    const answers = await Promise.all(Object.keys(values).map((k) => gets.get(k)));
    expect(answers).toEqual(Object.values(values));
    expect(calls.map((c) => c.keys.length)).toEqual([3, 3, 1]);
  });

  it("rejects every caller of a failed batch with Redis's error", async () => {
    const { client } = fakeClient({}, new Error('Connection is closed.'));
    const gets = new BatchedGet(client);
    const results = await Promise.allSettled([gets.get('a'), gets.get('b')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((results[0] as PromiseRejectedResult).reason.message).toBe('Connection is closed.');
  });
});

type Call = { node: string; command: 'get' | 'mget'; keys: string[] };

/**
 * A stand-in Redis Cluster of two primaries, `a` (slots below 8192) and `b`, as the client last
 * learnt it (`slots`); `owner` says which node really serves a slot (a node asked for another's
 * slot answers MOVED, a MGET across slots CROSSSLOT, as Redis does). Every command is recorded
 * with the node that got it (`cluster`: the cluster client, which routes and follows redirections).
 */
function fakeCluster(values: Record<string, string>) {
  const calls: Call[] = [];
  const slots = Array.from({ length: 16384 }, (_, slot) => [slot < 8192 ? 'a:1' : 'b:1']);
  let owner = (slot: number) => (slot < 8192 ? 'a' : 'b');
  const listeners = new Map<string, Array<() => void>>();
  const corks: string[] = [];
  let clusterFails: Error | null = null;
  const answer = (name: string, command: 'get' | 'mget', keys: string[]) => {
    calls.push({ node: name, command, keys: [...keys] });
    const keySlots = new Set(keys.map(keySlot));
    if (keySlots.size > 1)
      return Promise.reject(new Error("CROSSSLOT Keys in request don't hash to the same slot"));
    const [slot] = keySlots;
    if (name === 'cluster' && clusterFails) return Promise.reject(clusterFails);
    if (name !== 'cluster' && owner(slot) !== name)
      return Promise.reject(new Error(`MOVED ${slot} 127.0.0.1:1`));
    const found = keys.map((k) => values[k] ?? null);
    return Promise.resolve(command === 'get' ? found[0] : found);
  };
  const node = (name: string) => ({
    options: { host: name, port: 1 },
    status: 'ready',
    stream: { cork: () => corks.push(name), uncork: () => undefined },
    get: (key: string) => answer(name, 'get', [key]),
    mget: (keys: string[]) => answer(name, 'mget', keys),
  });
  const nodes = [node('a'), node('b')];
  const cluster = {
    isCluster: true,
    slots,
    nodes: () => nodes,
    on: (event: string, f: () => void) =>
      listeners.set(event, [...(listeners.get(event) ?? []), f]),
    get: (key: string) => answer('cluster', 'get', [key]),
    mget: (keys: string[]) => answer('cluster', 'mget', keys),
  };
  return {
    client: cluster as unknown as Cluster,
    calls,
    corks,
    nodes,
    /** The cluster moves every slot to `to` and the client refreshes its map. */
    moveAllTo(to: 'a' | 'b', refresh: boolean) {
      owner = () => to;
      if (!refresh) return;
      slots.fill([`${to}:1`]);
      for (const f of listeners.get('refresh') ?? []) f();
    },
    failCluster(err: Error | null) {
      clusterFails = err;
    },
  };
}

describe('BatchedGet on a Redis Cluster', () => {
  // keys that share a {tag} share a slot; foo is in slot 12182 (b), bar in 5061 (a)
  const values = { 'p:{x}:1': '1', 'p:{x}:2': '2', foo: 'f', bar: 'b', 'p:{y}:1': 'y' };
  const keys = Object.keys(values);

  it("sends one MGET per slot on its primary's own connection, written together", async () => {
    const { client, calls, corks } = fakeCluster(values);
    const gets = new BatchedGet(client);
    const answers = await Promise.all([...keys, 'missing', 'foo'].map((k) => gets.get(k)));
    expect(answers).toEqual([...Object.values(values), null, 'f']);
    // one command per slot, each on the node serving it, none through the cluster client
    expect(calls).toHaveLength(new Set([...keys, 'missing'].map(keySlot)).size);
    for (const c of calls) expect(c.node).toBe(keySlot(c.keys[0]) < 8192 ? 'a' : 'b');
    expect(calls).toContainEqual({ node: 'b', command: 'mget', keys: ['foo', 'foo'] });
    expect(calls).toContainEqual({ node: 'a', command: 'get', keys: ['bar'] });
    // each node's socket corked once for the batch
    expect([...corks].sort()).toEqual(['a', 'b']);
  });

  it('follows a moved slot through the cluster client, then uses the refreshed map', async () => {
    const f = fakeCluster(values);
    const gets = new BatchedGet(f.client);
    f.moveAllTo('a', false); // the client does not know yet
    await expect(Promise.all(['foo', 'bar'].map((k) => gets.get(k)))).resolves.toEqual(['f', 'b']);
    // foo was asked of b, answered MOVED, and read again through the cluster client
    expect(f.calls).toContainEqual({ node: 'b', command: 'get', keys: ['foo'] });
    expect(f.calls).toContainEqual({ node: 'cluster', command: 'get', keys: ['foo'] });
    f.calls.length = 0;
    f.moveAllTo('a', true); // the cluster refreshed its slot map
    await expect(gets.get('foo')).resolves.toBe('f');
    expect(f.calls).toEqual([{ node: 'a', command: 'get', keys: ['foo'] }]);
  });

  it('reads through the cluster client while a node is not ready or a slot is unknown', async () => {
    const f = fakeCluster(values);
    f.nodes[1].status = 'reconnecting';
    f.client.slots[keySlot('bar')] = undefined as unknown as string[];
    const gets = new BatchedGet(f.client);
    await expect(Promise.all(['foo', 'bar'].map((k) => gets.get(k)))).resolves.toEqual(['f', 'b']);
    expect(f.calls.map((c) => c.node)).toEqual(['cluster', 'cluster']);
  });

  it('rejects only the callers whose slot could not be read at all', async () => {
    const f = fakeCluster(values);
    const gets = new BatchedGet(f.client);
    await gets.get('bar'); // the table is built
    f.nodes[1].status = 'reconnecting';
    f.failCluster(new Error('Connection is closed.'));
    const results = await Promise.allSettled(['foo', 'bar'].map((k) => gets.get(k)));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect((results[0] as PromiseRejectedResult).reason.message).toBe('Connection is closed.');
    expect((results[1] as PromiseFulfilledResult<string>).value).toBe('b');
  });
});
