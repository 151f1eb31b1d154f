import type Redis from 'ioredis';

import { BatchedGet } from './batched-get';

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
