import { Injectable } from '@nestjs/common';
import {
  DataClass,
  Destination,
  ReleasePolicies,
  ReleasePolicy,
  type ReleasePolicyProvider,
  Trust,
} from '@verdict/nestjs';
import { ORDER_ATTACHMENTS } from './bill-payment.capabilities.js';

/** The customer's approval screen (their phone): where they read what a payment they confirm came from. */
export const CUSTOMER_APPROVAL_SCREEN = Destination.connection('approval-screen', 'customer');

/**
 * The quarantine lab's release route: an order's uploaded files to the customer's own approval screen, as
 * untrusted internal text. No detector runs on it: the IBAN in the passage is what the customer must see.
 */
@ReleasePolicies()
@Injectable()
export class BillReleasePolicies implements ReleasePolicyProvider {
  releasePolicies(): ReleasePolicy[] {
    return [
      ReleasePolicy.route(ORDER_ATTACHMENTS, CUSTOMER_APPROVAL_SCREEN)
        .allow({ classes: [DataClass.Internal], trust: [Trust.Untrusted] })
        .detectWith([]),
    ];
  }
}
