import { Injectable } from '@nestjs/common';
import { type OversightConfiguration, PrismaService, type PublicSurface } from '@workline/db';

/** A configuration as created: the database sets its creation time. */
export type NewConfiguration = Omit<OversightConfiguration, 'createdAt'>;

/** The configuration rows of PostgreSQL (ConfigurationsService holds the rules). */
@Injectable()
export class ConfigurationsRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(row: NewConfiguration): Promise<OversightConfiguration> {
    return this.prisma.oversightConfiguration.create({ data: row });
  }

  findById(id: string): Promise<OversightConfiguration | null> {
    return this.prisma.oversightConfiguration.findUnique({ where: { id } });
  }
}

export type ConfigurationRows = PublicSurface<ConfigurationsRepository>;
