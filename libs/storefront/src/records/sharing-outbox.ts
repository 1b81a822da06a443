/** One synthetic side effect of the record capabilities: an upload or a sent message. */
export interface SharedItem {
  readonly kind: 'upload' | 'message';
  readonly tenant: string;
  readonly customerId: number;
  /** `internal:<host>` or `external:<host>`, see `sharingDestination`. */
  readonly destination: string;
  readonly reference: string;
}

/**
 * Where the record capabilities' uploads and messages go in the synthetic storefront: an in-process list
 * the lab, the tests and the evaluation pack read to see what actually left.
 */
export class SharingOutbox {
  private readonly items: SharedItem[] = [];

  add(item: SharedItem): void {
    this.items.push(Object.freeze({ ...item }));
  }

  /** Everything shared so far, oldest first. */
  list(): readonly SharedItem[] {
    return [...this.items];
  }

  /** Items that went outside the tenant's boundary. */
  external(): readonly SharedItem[] {
    return this.items.filter((item) => item.destination.startsWith('external:'));
  }
}
