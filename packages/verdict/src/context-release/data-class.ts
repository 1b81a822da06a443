/** How sensitive released data is. A release policy allows classes explicitly; nothing is implied. */
export enum DataClass {
  Public = 'public',
  Internal = 'internal',
  Pii = 'pii',
  Sensitive = 'sensitive',
}
