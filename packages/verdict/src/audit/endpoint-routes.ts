import type { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { ApprovalEndpointGuard } from '../approvals/approval-endpoint.guard.js';

/** Nest's metadata key of `@UseGuards` (`@nestjs/common/constants` GUARDS_METADATA). */
const GUARDS_METADATA = '__guards__';

const guardedByApproval = (target: object): boolean =>
  ((Reflect.getMetadata(GUARDS_METADATA, target) as unknown[] | undefined) ?? []).includes(ApprovalEndpointGuard);

/** Every `@ApprovalEndpoint()` route of the application's controllers, as `Controller.method` (or `Controller` for a class). */
export function approvalEndpoints(discovery: DiscoveryService, scanner: MetadataScanner): string[] {
  const routes: string[] = [];
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as (abstract new (...args: never[]) => object) | null | undefined;
    if (typeof controller !== 'function') continue;
    if (guardedByApproval(controller)) routes.push(controller.name);
    const prototype = controller.prototype as Record<string, object>;
    for (const method of scanner.getAllMethodNames(prototype)) {
      if (guardedByApproval(prototype[method])) routes.push(`${controller.name}.${method}`);
    }
  }
  return routes;
}
