import type { Models } from '../models';
import { ClickRepository } from './click.repository';
import { LinkRepository } from './link.repository';
import { MerchantRepository } from './merchant.repository';
import { ProgramRepository } from './program.repository';

/** Every repository over one connection's models; their caches live (and die) with this object. */
export interface Repositories {
  programs: ProgramRepository;
  merchants: MerchantRepository;
  links: LinkRepository;
  clicks: ClickRepository;
}

export function createRepositories(models: Models): Repositories {
  return { programs: new ProgramRepository(models), merchants: new MerchantRepository(models), links: new LinkRepository(models), clicks: new ClickRepository(models) };
}
