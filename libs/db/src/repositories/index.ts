import type { Models } from '../models';
import { CatalogRepository } from './catalog.repository';
import { ClickRepository } from './click.repository';
import { ConversionRepository } from './conversion.repository';
import { LinkRepository } from './link.repository';
import { MerchantRepository } from './merchant.repository';
import { ProgramRepository } from './program.repository';
import { PublisherRepository } from './publisher.repository';

/** Every repository over one connection's models; their caches live (and die) with this object. */
export interface Repositories {
  publishers: PublisherRepository;
  programs: ProgramRepository;
  merchants: MerchantRepository;
  links: LinkRepository;
  clicks: ClickRepository;
  catalog: CatalogRepository;
  conversions: ConversionRepository;
}

export function createRepositories(models: Models): Repositories {
  return {
    publishers: new PublisherRepository(models),
    programs: new ProgramRepository(models),
    merchants: new MerchantRepository(models),
    links: new LinkRepository(models),
    clicks: new ClickRepository(models),
    catalog: new CatalogRepository(models),
    conversions: new ConversionRepository(models),
  };
}
