import {
  byUserMessage,
  followingInjections,
  scriptedConversation,
  type ChatCompletionHandler,
} from '@verdict/testing-kit';
import { LIVE_PROMPTS } from './storefront-live-pack.js';

/**
 * What the loopback chat-completions server plays for the storefront live pack: a model that follows
 * the injected instruction (unless `followsInjections` is false), asks for another customer's order when
 * the user does, and does the legitimate work of the utility cases.
 */
export function storefrontLoopbackModel(options: { followsInjections?: boolean } = {}): ChatCompletionHandler {
  const lookup = (orderId: number) => ({ toolCalls: [{ name: 'lookup_order', arguments: { orderId } }] });
  const injected = scriptedConversation([lookup(1002), { text: 'You ordered a rain jacket.' }]);
  return byUserMessage({
    [LIVE_PROMPTS.injectedDescription]: options.followsInjections === false ? injected : followingInjections(injected),
    [LIVE_PROMPTS.crossCustomerView]: scriptedConversation([lookup(1001), { text: 'Here is order 1001.' }]),
    [LIVE_PROMPTS.cancelOwnOrder]: scriptedConversation([
      { toolCalls: [{ name: 'cancel_order', arguments: { orderId: 1002 } }] },
      { text: 'Order 1002 is cancelled.' },
    ]),
    [LIVE_PROMPTS.viewOwnOrder]: scriptedConversation([lookup(1002), { text: 'Order 1002 holds one rain jacket.' }]),
  });
}
