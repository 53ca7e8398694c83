import type { OversightConfiguration } from '@workline/db';
import type { ConfigurationRows, NewConfiguration } from '../configurations.repository';

export class InMemoryConfigurations implements ConfigurationRows {
  readonly rows = new Map<string, OversightConfiguration>();
  /** How many times a configuration was read (the service caches what it found). */
  reads = 0;

  async create(row: NewConfiguration): Promise<OversightConfiguration> {
    const created = { ...row, createdAt: new Date() };
    this.rows.set(row.id, created);
    return created;
  }

  async findById(id: string): Promise<OversightConfiguration | null> {
    this.reads++;
    return this.rows.get(id) ?? null;
  }
}
