import { DiscoveryService } from '@nestjs/core';
import type { CapabilityOptions } from './capability-options.interface.js';

/**
 * Declares the decorated provider method as the executor of a capability. Discovered at boot; the
 * provider must be registered in a module. See {@link CapabilityOptions}.
 */
export const Capability = DiscoveryService.createDecorator<CapabilityOptions>();
