import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { IsOptional } from 'class-validator';
import { DataSource, EntityManager } from 'typeorm';

import { InvalidFieldError, mapError, Principal, storedUrl, validateBody } from '@app/common';
import { Domain } from '@app/database';

import { DestinationPolicy } from './destination-policy';
import { IsDomainRef } from './domain-ref';
import { LinkCacheAccess } from './link-cache-access';
import { LinkField } from './link-fields';
import { hostOfDomainRef } from './link-input';
import { expiryDate, NewBatchLink, ShortCodes } from './short-codes/short-codes';

/** One link of an import, in url/add terms (empty cells are absent). */
export interface ImportLinkInput {
  /** the line of the file the record ends on (the header is line 1); JSON: the item's position */
  line: number;
  url?: string;
  alias?: string;
  title?: string;
  description?: string;
  /** a branded domain's host (or http(s)://host) */
  domain?: string;
  /** `YYYY-MM-DD HH:MM:SS` (UTC), or as the source wrote it when it could not be read */
  expiry?: string;
}

/** Rows of an import batch that passed validation, and those that did not. */
export interface PreparedImport {
  valid: Array<NewBatchLink & { line: number }>;
  errors: Array<{ line: number; message: string }>;
}

export interface ImportBatchResult {
  created: number;
  skipped: number;
  errors: Array<{ line: number; message: string }>;
  /** the plan's links count stopped the batch */
  limitReached: boolean;
}

/** The fields of `url/add` an import row has, checked by the same rules (LinkField). */
class ImportLinkDto {
  @LinkField.url()
  url: string;

  @IsOptional()
  @LinkField.custom()
  custom?: string;

  @IsOptional()
  @IsDomainRef()
  domain?: number | string;

  @IsOptional()
  @LinkField.expiry()
  expiry?: string | null;

  @LinkField.label(255)
  title?: string;

  @LinkField.label(500)
  description?: string;
}

/**
 * Creates the links of an import (the worker's import job), batch by batch, by the rules of
 * `url/add`. The links and their `link.created` outbox rows are written by ShortCodes (in one
 * transaction a batch), as the api's LinksService writes one at a time.
 */
@Injectable()
export class LinkImportWriter {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly codes: ShortCodes,
    private readonly destinations: DestinationPolicy,
    private readonly cache: LinkCacheAccess,
  ) {}

  /**
   * Validates a batch by the rules of `url/add` (the fields' checks, the alias rules and the
   * plan's alias feature, expiry, the destination policy, the caller's branded domains); no
   * writes, so it may run while the previous batch is written.
   */
  async prepareImport(auth: Principal, rows: ImportLinkInput[]): Promise<PreparedImport> {
    const errors: ImportBatchResult['errors'] = [];
    const domains = new Map(
      (await this.db.getRepository(Domain).find({ where: { userId: auth.user.id } })).map((d) => [
        d.host,
        d,
      ]),
    );
    const valid: PreparedImport['valid'] = [];
    for (const row of rows) {
      try {
        const dto = await validateBody(ImportLinkDto, {
          url: row.url,
          custom: row.alias,
          title: row.title,
          description: row.description,
          domain: row.domain,
          expiry: row.expiry,
        });
        if (dto.custom !== undefined && dto.custom !== null)
          this.codes.checkAlias(auth, 'custom', dto.custom);
        const expiresAt = expiryDate(dto.expiry);
        await this.destinations.checkAll([['url', dto.url]], { deferLookup: true });
        let domain: Domain | null = null;
        if (dto.domain !== undefined && dto.domain !== null) {
          const ref = dto.domain;
          domain =
            typeof ref === 'number'
              ? ([...domains.values()].find((d) => d.id === ref) ?? null)
              : (domains.get(hostOfDomainRef(ref) ?? '') ?? null);
          if (!domain) throw new InvalidFieldError('domain', 'is not one of your branded domains');
        }
        valid.push({
          line: row.line,
          custom: dto.custom ?? null,
          domain,
          values: {
            url: storedUrl(dto.url),
            title: dto.title ?? '',
            description: dto.description ?? '',
            expiresAt,
          },
        });
      } catch (err) {
        const { status, message } = mapError(err);
        if (status >= 500) throw err;
        errors.push({ line: row.line, message });
      }
    }
    return { valid, errors };
  }

  /**
   * Writes a prepared batch: an alias that exists among the caller's links, or a row without an
   * alias whose URL one of the caller's links has already, is skipped (so importing a file twice
   * creates nothing new); another user's alias is an error. The rest are created in one
   * transaction under the plan's `links` count (past it the rest are refused and `limitReached`
   * is set), with their `link.created` outbox rows; then cached misses of the new aliases are
   * forgotten. `commit` runs in the transaction that creates the links (the import's progress:
   * a crash never leaves links written and their rows not counted, or the reverse). Batches of one import are written one after the other.
   */
  async writeImport(
    auth: Principal,
    prepared: PreparedImport,
    commit?: (em: EntityManager, result: ImportBatchResult) => Promise<void>,
  ): Promise<ImportBatchResult> {
    const userId = auth.user.id;
    const { valid } = prepared;
    const result: ImportBatchResult = {
      created: 0,
      skipped: 0,
      errors: [...prepared.errors],
      limitReached: false,
    };
    // what exists already: the caller's aliases are skipped, another user's are an error; a row
    // without an alias is skipped when the caller has a link to its URL
    const aliases = valid.flatMap((v) => (v.custom ? [v.custom] : []));
    const urls = valid.flatMap((v) => (v.custom ? [] : [v.values.url]));
    // an alias reserved by a takedown (`down`) is refused, the caller's own included
    const [taken, linked]: [
      Array<{ alias: string; user_id: number; down: boolean }>,
      Array<{ url: string }>,
    ] = await Promise.all([
      aliases.length
        ? this.db.query(
            `SELECT alias, user_id, false AS down FROM links WHERE alias = ANY($1::varchar[])
             UNION ALL
             SELECT alias, user_id, true FROM link_takedowns t WHERE alias = ANY($1::varchar[])
                AND NOT EXISTS (SELECT 1 FROM links l WHERE l.alias = t.alias)`,
            [aliases],
          )
        : [],
      urls.length
        ? this.db.query(
            `SELECT DISTINCT url FROM links WHERE user_id = $1 AND kind = 'link' AND url = ANY($2::text[])`,
            [userId, urls],
          )
        : [],
    ]);
    const owners = new Map(taken.map((t) => [t.alias, t.user_id]));
    const down = new Set(taken.filter((t) => t.down).map((t) => t.alias));
    const known = new Set(linked.map((l) => l.url));
    const fresh: typeof valid = [];
    for (const v of valid) {
      const key = v.custom ?? v.values.url;
      if (v.custom && down.has(v.custom) && owners.get(v.custom) === userId) {
        result.errors.push({ line: v.line, message: this.codes.reserved('custom').message });
      } else if (v.custom && owners.has(v.custom) && owners.get(v.custom) !== userId) {
        result.errors.push({ line: v.line, message: this.codes.taken('custom').message });
      } else if (v.custom ? owners.has(v.custom) : known.has(key)) {
        result.skipped += 1;
      } else {
        // the same alias (or URL without one) twice in the batch: the first wins
        if (v.custom) owners.set(v.custom, userId);
        else known.add(key);
        fresh.push(v);
      }
    }
    result.errors.sort((a, b) => a.line - b.line);
    if (!fresh.length) {
      await commit?.(this.db.manager, result);
      return result;
    }

    const created = await this.db.transaction(async (em) => {
      const { room, max } = await this.codes.room(em, auth, fresh.length);
      if (room < fresh.length) {
        result.limitReached = true;
        result.errors.push({
          line: fresh[room].line,
          message: `Plan limit reached: your plan allows ${max} links`,
        });
      }
      const { created, refused } = await this.codes.insertMany(em, userId, fresh.slice(0, room));
      result.skipped += refused.length; // taken meanwhile
      result.created = created.length;
      await commit?.(em, result);
      return created;
    });
    // visits before the import may have cached "no such alias"
    if (created.length) await this.cache.forgetAliases(created.map((c) => c.alias));
    return result;
  }
}
