/** How serious a wiring finding is, lowest first. `verdict validate --fail-on <severity>` fails on this level and above. */
export const Severity = {
  Low: 'low',
  Medium: 'medium',
  High: 'high',
  Critical: 'critical',
} as const;

export type Severity = (typeof Severity)[keyof typeof Severity];

const ORDER: readonly Severity[] = [Severity.Low, Severity.Medium, Severity.High, Severity.Critical];

/** Whether `value` is one of the {@link Severity} levels. */
export function isSeverity(value: unknown): value is Severity {
  return ORDER.includes(value as Severity);
}

/** Whether `severity` is `threshold` or more serious. */
export function isAtLeast(severity: Severity, threshold: Severity): boolean {
  return ORDER.indexOf(severity) >= ORDER.indexOf(threshold);
}
