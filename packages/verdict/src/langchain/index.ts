export { VerdictLangChainModule } from './verdict-langchain.module.js';
export { VerdictTools, type BoundToolOptions } from './verdict-tools.js';
export { VerdictBoundTool } from './verdict-bound-tool.js';
export { VerdictGuardedTool } from './verdict-guarded-tool.js';
export { notExecutedMessage } from './not-executed-message.js';
export { applicationFaultMiddleware } from './application-fault.middleware.js';
export { approveToolCall, rejectToolCall, isExplicitApproval, type ApprovalInterrupt, type ToolCallApproval } from './approval-resume.js';
