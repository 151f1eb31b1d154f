import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import {
  ConflictError,
  InvalidFieldError,
  NotFoundError,
  PageQueryDto,
  paginate,
  Paginated,
} from '@app/common';
import { BlocklistEntry, isUniqueViolation } from '@app/database';
import { Blocklist, normalizeEntry } from '@app/links';

import { AddBlocklistEntryDto } from './dto/add-blocklist-entry.dto';
import { BlocklistEntryView, blocklistEntryView } from './dto/blocklist-entry.view';

/** The admins' side of the blocklist: entries listed, added, removed; every replica follows. */
@Injectable()
export class BlocklistService {
  constructor(
    @InjectRepository(BlocklistEntry) private readonly entries: Repository<BlocklistEntry>,
    private readonly blocklist: Blocklist,
  ) {}

  list(query: PageQueryDto): Promise<Paginated<BlocklistEntryView>> {
    return paginate(this.entries.createQueryBuilder('b'), query, 'blocklist', blocklistEntryView);
  }

  async add(dto: AddBlocklistEntryDto): Promise<{ id: number; entry: string }> {
    const entry = normalizeEntry(dto.entry);
    if (!entry)
      throw new InvalidFieldError('entry', 'must be a domain (bad.example) or keyword:<word>');
    try {
      const saved = await this.entries.save(this.entries.create({ entry }));
      await this.blocklist.changed();
      return { id: saved.id, entry };
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError('entry: already on the blocklist');
      throw err;
    }
  }

  async remove(id: number): Promise<void> {
    const result = await this.entries.delete({ id });
    if (!result.affected) throw new NotFoundError('Blocklist entry');
    await this.blocklist.changed();
  }
}
