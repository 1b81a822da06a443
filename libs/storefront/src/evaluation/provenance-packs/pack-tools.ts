/** Tool names the agent sees, and the capability each is bound to (the unbound ones are read-only third-party tools). */
export const PackTool = {
  ViewProduct: 'view_product',
  ReadTicket: 'read_ticket',
  SearchDocs: 'search_docs',
  ListIssues: 'list_issues',
  ExchangeRate: 'get_exchange_rate',
  AskBillingAgent: 'ask_billing_agent',
  SendPayment: 'send_payment',
  ShareFile: 'share_file',
  SendEmail: 'send_email',
  UpdateEmail: 'update_account_email',
  UpdatePhone: 'update_account_phone',
  DeleteRepository: 'delete_repository',
  CloseAccount: 'close_account',
  IssueRefund: 'issue_refund',
} as const;
export type PackTool = (typeof PackTool)[keyof typeof PackTool];

/** The capability behind each bound tool; unbound tools are reported under their own name. */
export const CAPABILITY_OF_TOOL: Readonly<Record<string, string>> = {
  [PackTool.ViewProduct]: 'products.view',
  [PackTool.ReadTicket]: 'tickets.read',
  [PackTool.SendPayment]: 'payments.send',
  [PackTool.ShareFile]: 'files.share',
  [PackTool.SendEmail]: 'email.send',
  [PackTool.UpdateEmail]: 'account.updateEmail',
  [PackTool.UpdatePhone]: 'account.updatePhone',
  [PackTool.DeleteRepository]: 'repository.delete',
  [PackTool.CloseAccount]: 'account.close',
  [PackTool.IssueRefund]: 'refunds.issue',
};
