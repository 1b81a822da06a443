/** Names of the customer-records capabilities (see `RecordsCapabilities`). */
export const RecordsCapability = {
  ReadRecords: 'records.read',
  ExportRecords: 'records.export',
  UploadExport: 'files.upload',
  SendLink: 'messages.send',
} as const;

/** A customer-records capability name. */
export type RecordsCapability = (typeof RecordsCapability)[keyof typeof RecordsCapability];
