/**
 * The application's own types, registered once by module augmentation (ADR 0018). Empty here: without a
 * registration the actor is `unknown` and the tenant `string | null`, so nothing unsafe is implied.
 *
 * Applications register; libraries do not (an augmentation is global to every program that sees it): a
 * library passes its context type as the last type parameter of the factories instead, e.g.
 * `fromProposal<OrderIdArguments, Order, OrderSource, ActionContext<StorefrontActor>>(...)`.
 *
 * @example
 * declare module '@verdict/nestjs' {
 *   interface VerdictTypes {
 *     actor: { customerId: number };
 *     tenant: string; // optional: `string | null` when not registered
 *   }
 * }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the application's module augmentation
export interface VerdictTypes {}

/** The registered actor (`VerdictTypes['actor']`), or `unknown` when the application registered none. */
export type VerdictActor = VerdictTypes extends { readonly actor: infer TActor } ? TActor : unknown;

/** The registered tenant (`VerdictTypes['tenant']`, a `string | null` subtype), or `string | null`. */
export type VerdictTenant = VerdictTypes extends { readonly tenant: infer TTenant extends string | null }
  ? TTenant
  : string | null;
