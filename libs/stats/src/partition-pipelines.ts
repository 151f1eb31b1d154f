import type { ChainableCommander, Cluster, Redis } from 'ioredis';

import {
  isCluster,
  isRedirection,
  keySlot,
  RedisClient,
  SlotRoutes,
  withCommandsOf,
} from '@app/redis';

import type { StatsKeys } from './keys';

/** A pipeline's reply to one command. */
export type Reply = [error: Error | null, result: unknown];

/** Adds one command to a pipeline. */
type Add<P> = (pipeline: P) => unknown;

/**
 * Commands on statistics keys, sent together: one pipeline on one server; on a Redis Cluster one
 * pipeline per primary, on that primary's own connection, with the commands of every partition
 * it serves (a partition is one hash slot). Each `add(partition, p => p.command(…))` adds exactly
 * one command; `exec` sends the pipelines side by side and answers the replies in the order the
 * commands were added (a partition's commands run in that order too).
 *
 * On a cluster the primaries' connections come from `SlotRoutes`: an ioredis cluster pipeline
 * would compute the slot of every key of every command again (a flush's chunk names 101 keys).
 * A partition whose primary is not known or not ready goes through the cluster client, and so
 * do the commands a primary answered with a redirection (MOVED, ASK, TRYAGAIN, CLUSTERDOWN:
 * they did not run), in a second pipeline per partition, after which the routes are rebuilt.
 * A command whose connection failed is answered with that error, not sent again: it may have run.
 */
export class PartitionPipelines<P extends ChainableCommander = ChainableCommander> {
  private readonly commands: Array<[partition: number, add: Add<P>]> = [];

  constructor(
    private readonly client: RedisClient,
    private readonly keys: Pick<StatsKeys, 'partitions'>,
  ) {}

  get length(): number {
    return this.commands.length;
  }

  /** Adds one command on `partition`'s keys. */
  add(partition: number, add: Add<P>): void {
    this.commands.push([partition, add]);
  }

  async exec(): Promise<Reply[]> {
    const client = this.client;
    if (!isCluster(client)) {
      const pipeline = client.pipeline() as P;
      for (const [, add] of this.commands) add(pipeline);
      return fill((await pipeline.exec()) as Reply[] | null, this.commands.length);
    }
    return this.execOnCluster(client);
  }

  private async execOnCluster(cluster: Cluster): Promise<Reply[]> {
    const routes = SlotRoutes.of(cluster);
    const replies: Reply[] = new Array<Reply>(this.commands.length);
    // per primary: its pipeline and the index of each of its commands
    const byNode = new Map<Redis, { pipeline: P; at: number[] }>();
    const viaCluster: number[] = [];
    this.commands.forEach(([partition, add], i) => {
      const node = routes.node(this.slotOf(partition));
      if (!node) return viaCluster.push(i);
      let group = byNode.get(node);
      if (!group) {
        group = { pipeline: withCommandsOf(cluster, node).pipeline() as P, at: [] };
        byNode.set(node, group);
      }
      add(group.pipeline);
      group.at.push(i);
    });
    await Promise.all(
      [...byNode.values()].map(async ({ pipeline, at }) => {
        const got = await pipeline.exec().then(
          (r) => fill(r as Reply[] | null, at.length),
          (err: Error) => at.map((): Reply => [err, null]),
        );
        at.forEach((i, j) => {
          const [err] = got[j];
          if (err && isRedirection(err)) viaCluster.push(i);
          else replies[i] = got[j];
        });
      }),
    );
    if (viaCluster.length) {
      routes.stale();
      await this.sendViaCluster(cluster, viaCluster, replies);
    }
    return replies;
  }

  /** The commands at `indices` through the cluster client: one pipeline per partition. */
  private async sendViaCluster(cluster: Cluster, indices: number[], replies: Reply[]) {
    indices.sort((a, b) => a - b);
    const byPartition = new Map<number, number[]>();
    for (const i of indices) {
      const partition = this.commands[i][0];
      const at = byPartition.get(partition);
      if (at) at.push(i);
      else byPartition.set(partition, [i]);
    }
    await Promise.all(
      [...byPartition.values()].map(async (at) => {
        const pipeline = cluster.pipeline() as P;
        for (const i of at) this.commands[i][1](pipeline);
        const got = await pipeline.exec().then(
          (r) => fill(r as Reply[] | null, at.length),
          (err: Error) => at.map((): Reply => [err, null]),
        );
        at.forEach((i, j) => (replies[i] = got[j]));
      }),
    );
  }

  /** The partition's hash slot (-1, which no primary serves, for one the keys do not name). */
  private slotOf(partition: number): number {
    const keys = this.keys.partitions[partition];
    return keys ? keySlot(keys.base) : -1;
  }
}

/** A pipeline's replies, `n` of them (a missing one is an error). */
function fill(replies: Reply[] | null, n: number): Reply[] {
  const out: Reply[] = new Array<Reply>(n);
  for (let i = 0; i < n; i++) out[i] = replies?.[i] ?? [new Error('no reply'), null];
  return out;
}
