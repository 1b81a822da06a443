import type { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { ApprovalEndpointGuard } from '../approvals/approval-endpoint.guard.js';
import { ReviewEndpointGuard } from '../review/review-endpoint.guard.js';

/** Nest's metadata key of `@UseGuards` (`@nestjs/common/constants` GUARDS_METADATA). */
const GUARDS_METADATA = '__guards__';

/** Every `@ApprovalEndpoint()` route of the application's controllers, as `Controller.method` (or `Controller` for a class). */
export function approvalEndpoints(discovery: DiscoveryService, scanner: MetadataScanner): string[] {
  return routesGuardedBy(ApprovalEndpointGuard, discovery, scanner);
}

/** Every `@ReviewEndpoint()` route of the application's controllers, as `Controller.method` (or `Controller` for a class). */
export function reviewEndpoints(discovery: DiscoveryService, scanner: MetadataScanner): string[] {
  return routesGuardedBy(ReviewEndpointGuard, discovery, scanner);
}

function routesGuardedBy(
  guard: abstract new (...args: never[]) => object,
  discovery: DiscoveryService,
  scanner: MetadataScanner,
): string[] {
  const guarded = (target: object): boolean =>
    ((Reflect.getMetadata(GUARDS_METADATA, target) as unknown[] | undefined) ?? []).includes(guard);
  const routes: string[] = [];
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as (abstract new (...args: never[]) => object) | null | undefined;
    if (typeof controller !== 'function') continue;
    if (guarded(controller)) routes.push(controller.name);
    const prototype = controller.prototype as Record<string, object>;
    for (const method of scanner.getAllMethodNames(prototype)) {
      if (guarded(prototype[method])) routes.push(`${controller.name}.${method}`);
    }
  }
  return routes;
}
