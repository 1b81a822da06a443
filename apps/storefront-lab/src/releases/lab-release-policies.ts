import { Injectable } from '@nestjs/common';
import {
  DataClass,
  Destination,
  ReleasePolicies,
  ReleasePolicy,
  type ReleasePolicyProvider,
  Source,
  Trust,
} from '@verdict/nestjs';

/** The customer profile the lab releases: application data about the signed-in customer. */
export const CUSTOMER_PROFILE = Source.application('customer-profile');

/** The model connection on this machine: the only destination the lab registers a route to. */
export const LOCAL_MODEL = Destination.connection('ollama', 'local-machine');

/**
 * The lab's release routes, discovered at boot through `@ReleasePolicies()`: exactly one, the customer
 * profile to `ollama@local-machine`, for trusted PII. Nothing else is registered, so the same connection
 * name in any other trust zone releases nothing.
 */
@ReleasePolicies()
@Injectable()
export class LabReleasePolicies implements ReleasePolicyProvider {
  releasePolicies(): ReleasePolicy[] {
    return [
      ReleasePolicy.route(CUSTOMER_PROFILE, LOCAL_MODEL).allow({ classes: [DataClass.Pii], trust: [Trust.Trusted] }),
    ];
  }
}
