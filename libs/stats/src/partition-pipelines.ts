import { ChainableCommander } from 'ioredis';

import { isCluster, RedisClient } from '@app/redis';

/** A pipeline's reply to one command. */
export type Reply = [error: Error | null, result: unknown];

/**
 * Pipelines of commands on statistics keys, one per partition on a Redis Cluster (an ioredis
 * cluster pipeline must stay on the slots of one node, and a partition is one slot), a single
 * one on one server. Each `on(partition)` call takes exactly one command; `exec` runs the
 * pipelines side by side and answers the replies in the order the commands were added.
 */
export class PartitionPipelines<P extends ChainableCommander = ChainableCommander> {
  private readonly pipelines = new Map<number, P>();
  private readonly order: Array<[group: number, index: number]> = [];
  private readonly split: boolean;

  constructor(private readonly client: RedisClient) {
    this.split = isCluster(client);
  }

  get length(): number {
    return this.order.length;
  }

  /** The pipeline to add one command on `partition`'s keys to. */
  on(partition: number): P {
    const group = this.split ? partition : 0;
    let pipeline = this.pipelines.get(group);
    if (!pipeline) {
      pipeline = this.client.pipeline() as P;
      this.pipelines.set(group, pipeline);
    }
    this.order.push([group, pipeline.length]);
    return pipeline;
  }

  async exec(): Promise<Reply[]> {
    const replies = new Map<number, Reply[]>();
    await Promise.all(
      [...this.pipelines].map(async ([group, pipeline]) => {
        replies.set(group, ((await pipeline.exec()) ?? []) as Reply[]);
      }),
    );
    return this.order.map(
      ([group, index]) => replies.get(group)?.[index] ?? [new Error('no reply'), null],
    );
  }
}
