import { Injectable } from '@nestjs/common';
import type { AbilityFactory, ActionContext } from '@verdict/nestjs';
import { DataSource } from 'typeorm';
import { Customer } from '../entities/customer.entity.js';
import { type StorefrontAbility, defineStorefrontAbility, denyAllStorefrontAbility } from './storefront-ability.js';
import { isStorefrontActor } from './storefront-actor.js';

/**
 * Verdict's {@link AbilityFactory} for the storefront: reads the customer named by
 * `context.actor.customerId` (a {@link StorefrontActor}) and returns {@link defineStorefrontAbility} for
 * `context.tenant`. Fails closed with an empty ability (denies everything) when the actor is not a
 * storefront actor, the tenant is missing, the customer does not exist, or the customer belongs to
 * another tenant. Verdict calls it at proposal and again at execution, so a change in between is seen.
 *
 * @example
 * // DataSource is the global provider TypeOrmModule.forRoot registers.
 * VerdictModule.forRootAsync({ inject: [DataSource], useFactory: (dataSource: DataSource) => ({ abilityFactory: new StorefrontAbilityFactory(dataSource) }) })
 */
@Injectable()
export class StorefrontAbilityFactory implements AbilityFactory {
  constructor(private readonly dataSource: DataSource) {}

  async createForContext(context: ActionContext): Promise<StorefrontAbility> {
    const { actor, tenant } = context;
    if (!isStorefrontActor(actor) || typeof tenant !== 'string' || tenant === '') return denyAllStorefrontAbility();
    const customer = await this.dataSource.getRepository(Customer).findOneBy({ id: actor.customerId });
    if (customer === null || customer.tenantId !== tenant) return denyAllStorefrontAbility();
    return defineStorefrontAbility(customer, tenant);
  }
}
