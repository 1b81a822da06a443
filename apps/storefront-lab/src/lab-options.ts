/** Where the lab keeps its embedded SQLite database. */
export interface LabOptions {
  /** A file path, or `:memory:`. The lab seeds it at boot. */
  readonly database: string;
}
