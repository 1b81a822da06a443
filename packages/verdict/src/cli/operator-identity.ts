import { userInfo } from 'node:os';

/**
 * Says who is running the operator CLI, from something the operator does not type: the CLI records it
 * next to `--by` on every claim it resolves, and names it in the evidence. Pass your own source (an SSO
 * session, a bastion's login) to `VerdictCliModule.forRoot({ operatorIdentity })`. Default:
 * {@link osOperatorIdentity}.
 *
 * @example
 * VerdictCliModule.forRoot({ operatorIdentity: () => `sso:${session.subject}` })
 */
export type OperatorIdentity = () => string | Promise<string>;

/** Injection token of the CLI's {@link OperatorIdentity} (set by `VerdictCliModule.forRoot`). */
export const OPERATOR_IDENTITY = Symbol('VerdictOperatorIdentity');

/**
 * The default {@link OperatorIdentity}: `os:<user name>` of the OS account running the process
 * (`os.userInfo()`), or `os-uid:<uid>` where the account has no name. An account name, not an opaque id:
 * keep operator accounts non-personal where that matters.
 *
 * @example
 * osOperatorIdentity() // 'os:deploy'
 */
export function osOperatorIdentity(): string {
  try {
    return `os:${userInfo().username}`;
  } catch {
    return `os-uid:${process.getuid?.() ?? 'unknown'}`;
  }
}
