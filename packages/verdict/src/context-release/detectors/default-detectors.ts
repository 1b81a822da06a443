import { emailDetector } from './email.detector.js';
import { ibanDetector } from './iban.detector.js';
import { ipAddressDetector } from './ip-address.detector.js';
import { paymentCardDetector } from './payment-card.detector.js';
import type { PiiDetector } from './pii-detector.interface.js';
import { phoneDetector } from './phone.detector.js';
import { usSsnDetector } from './us-ssn.detector.js';

/**
 * Every built-in detector: e-mail, phone, payment card, IBAN, US SSN, IP address. These are heuristics; they miss values
 * written in other forms and never prove a text clean.
 */
export const DEFAULT_DETECTORS: readonly PiiDetector[] = Object.freeze([
  emailDetector,
  phoneDetector,
  paymentCardDetector,
  ibanDetector,
  usSsnDetector,
  ipAddressDetector,
]);
