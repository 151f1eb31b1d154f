import type Redis from 'ioredis';
import type { Cluster } from 'ioredis';

import { BatchedGet, groupByNode } from './batched-get';
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

/**
 * A stand-in Redis Cluster of two nodes (slots below 8192 on `a`, the rest on `b`) that records
 * the pipelines it receives and refuses a MGET across slots, as Redis does.
 */
function fakeCluster(values: Record<string, string>, failNode?: string) {
  const slots = Array.from({ length: 16384 }, (_, slot) => [slot < 8192 ? 'a:1' : 'b:1']);
  const pipelines: Array<Array<{ command: 'get' | 'mget'; keys: string[] }>> = [];
  const cluster = {
    isCluster: true,
    slots,
    pipeline: () => {
      const commands: Array<{ command: 'get' | 'mget'; keys: string[] }> = [];
      pipelines.push(commands);
      const p = {
        get: (key: string) => (commands.push({ command: 'get', keys: [key] }), p),
        mget: (keys: string[]) => (commands.push({ command: 'mget', keys: [...keys] }), p),
        exec: async () => {
          const nodes = new Set(commands.flatMap((c) => c.keys.map((k) => slots[keySlot(k)][0])));
          if (nodes.size > 1)
            throw new Error(
              'All keys in the pipeline should belong to the same slots allocation group',
            );
          if (failNode && nodes.has(failNode)) throw new Error('Connection is closed.');
          return commands.map((c): [Error | null, unknown] => {
            if (new Set(c.keys.map(keySlot)).size > 1)
              return [new Error("CROSSSLOT Keys in request don't hash to the same slot"), null];
            return c.command === 'get'
              ? [null, values[c.keys[0]] ?? null]
              : [null, c.keys.map((k) => values[k] ?? null)];
          });
        },
      };
      return p;
    },
  };
  return { client: cluster as unknown as Cluster, pipelines };
}

describe('BatchedGet on a Redis Cluster', () => {
  // keys that share a {tag} share a slot
  const values = { 'p:{x}:1': '1', 'p:{x}:2': '2', foo: 'f', bar: 'b', 'p:{y}:1': 'y' };

  it('sends each node one pipeline holding one MGET per slot, and answers every caller', async () => {
    const keys = Object.keys(values);
    const { client, pipelines } = fakeCluster(values);
    const gets = new BatchedGet(client);
    const answers = await Promise.all([...keys, 'missing', 'foo'].map((k) => gets.get(k)));
    expect(answers).toEqual([...Object.values(values), null, 'f']);
    // one pipeline per node the keys live on
    const nodesUsed = new Set([...keys, 'missing'].map((k) => (keySlot(k) < 8192 ? 'a' : 'b')));
    expect(pipelines).toHaveLength(nodesUsed.size);
    // one command per slot, a MGET where a slot holds several keys
    const commands = pipelines.flat();
    expect(commands).toHaveLength(new Set([...keys, 'missing'].map(keySlot)).size);
    expect(commands).toContainEqual({ command: 'mget', keys: ['p:{x}:1', 'p:{x}:2'] });
    expect(commands).toContainEqual({ command: 'mget', keys: ['foo', 'foo'] });
  });

  it("rejects only the callers whose node's pipeline failed", async () => {
    const { client } = fakeCluster(values, 'b:1');
    const gets = new BatchedGet(client);
    const keys = ['foo', 'bar']; // 12182 on b, 5061 on a
    const results = await Promise.allSettled(keys.map((k) => gets.get(k)));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect((results[1] as PromiseFulfilledResult<string>).value).toBe('b');
  });

  it('groups by the slot map the client holds, a slot it has not learnt alone', () => {
    const slots: string[][] = [];
    slots[keySlot('foo')] = ['n1'];
    slots[keySlot('bar')] = ['n1'];
    const groups = groupByNode({ slots }, ['foo', 'bar', 'p:{x}:1', 'foo', 'p:{x}:2']);
    expect(groups).toEqual([[[0, 3], [1]], [[2, 4]]]);
  });
});
