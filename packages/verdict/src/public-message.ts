/** Injection token of the configured public message (a string) shown when a proposal is not executed. */
export const PublicMessage = Symbol('VerdictPublicMessage');
