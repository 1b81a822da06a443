import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import type { AbilityFactory, ActionContext } from '@verdict/nestjs';
import { StorefrontAbilityFactory } from '@verdict/storefront';
import type { DataSource } from 'typeorm';
import { isStaffActor } from './lab-reviewers.js';

/**
 * The lab's abilities: a storefront customer gets the storefront's rules; a staff member gets only `review`
 * on orders of their own tenant (the review lane's CASL check), nothing else.
 */
export class LabAbilityFactory implements AbilityFactory {
  private readonly storefront: StorefrontAbilityFactory;

  constructor(dataSource: DataSource) {
    this.storefront = new StorefrontAbilityFactory(dataSource);
  }

  async createForContext(context: ActionContext) {
    if (!isStaffActor(context.actor)) return this.storefront.createForContext(context);
    const { can, build } = new AbilityBuilder(createMongoAbility);
    if (typeof context.tenant === 'string' && context.tenant !== '')
      can('review', 'Order', { tenantId: context.tenant });
    return build();
  }
}
