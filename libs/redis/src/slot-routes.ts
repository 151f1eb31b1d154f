import type { Cluster, Redis } from 'ioredis';

import { CLUSTER_SLOTS } from './key-slot';

/** The cluster's routes, one table per cluster client (every user of a client shares it). */
const routesOf = new WeakMap<Cluster, SlotRoutes>();

/**
 * Which primary's connection serves each hash slot of a Redis Cluster, for code that writes a
 * batch straight to the primaries' connections instead of through the cluster client (whose
 * pipelines compute the slot of every key of every command again, copying each key into an
 * array of its bytes first).
 *
 * The table is built from the client's slot map and rebuilt when the cluster refreshes it, gains
 * or loses a node, or a caller saw a reply that says the map is out of date (`stale`): a slot the
 * table does not place, or whose node is not ready, answers `undefined`, and the caller sends
 * through the cluster client, which follows MOVED and ASK and retries.
 */
export class SlotRoutes {
  /** The primary serving each slot: an index into `nodes` (-1: ask the cluster). */
  private nodeOfSlot = new Int16Array(CLUSTER_SLOTS).fill(-1);
  private nodes: Redis[] = [];
  private isStale = true;

  private constructor(private readonly cluster: Cluster) {
    const stale = () => this.stale();
    cluster.on('refresh', stale);
    cluster.on('+node', stale);
    cluster.on('-node', stale);
  }

  /** The routes of `cluster` (made on first use, then shared). */
  static of(cluster: Cluster): SlotRoutes {
    let routes = routesOf.get(cluster);
    if (!routes) {
      routes = new SlotRoutes(cluster);
      routesOf.set(cluster, routes);
    }
    return routes;
  }

  /** The connection of the primary serving `slot`, when the table places it and it is ready. */
  node(slot: number): Redis | undefined {
    if (this.isStale) this.rebuild();
    const n = this.nodeOfSlot[slot];
    const node = n >= 0 ? this.nodes[n] : undefined;
    return node?.status === 'ready' ? node : undefined;
  }

  /** The table is rebuilt before its next use (a reply said a slot moved, a node went). */
  stale(): void {
    this.isStale = true;
  }

  private rebuild(): void {
    const cluster = this.cluster;
    const table = this.nodeOfSlot;
    table.fill(-1);
    const nodes = cluster.nodes('master');
    const index = new Map(nodes.map((node, i) => [`${node.options.host}:${node.options.port}`, i]));
    for (let slot = 0; slot < CLUSTER_SLOTS; slot++) {
      const primary = cluster.slots[slot]?.[0];
      table[slot] = (primary !== undefined ? index.get(primary) : undefined) ?? -1;
    }
    this.nodes = nodes;
    // an empty map (before the cluster connected) is read again on the next use
    this.isStale = !cluster.slots.length;
  }
}

/**
 * Whether an error reply means the command did not run where it was sent and the cluster client
 * would run it elsewhere: the slot moved (MOVED), is moving (ASK), the cluster is reconfiguring
 * (TRYAGAIN, CLUSTERDOWN). A command answered so did nothing, so sending it again is safe even
 * when it writes.
 */
export function isRedirection(err: Error): boolean {
  return /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN) /.test(err.message);
}

/**
 * `node` with the commands defined on `cluster` (`defineCommand`: the Lua scripts), so that a
 * pipeline of the node's takes them as the cluster's does. ioredis keeps a client's definitions in
 * its `scriptsSet` (part of its typings); the node's pipelines then run the same script objects
 * (EVALSHA, loading the script on a connection that lacks it).
 */
export function withCommandsOf(cluster: Cluster, node: Redis): Redis {
  const scripts = cluster.scriptsSet as Record<string, unknown>;
  const own = node.scriptsSet as Record<string, unknown>;
  const commands = node as unknown as Record<string, unknown>;
  const source = cluster as unknown as Record<string, unknown>;
  for (const name of Object.keys(scripts)) {
    if (own[name] === scripts[name]) continue;
    own[name] = scripts[name];
    commands[name] = source[name];
    commands[`${name}Buffer`] = source[`${name}Buffer`];
  }
  return node;
}
