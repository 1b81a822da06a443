import { Source, Trust } from '@verdict/nestjs';
import { agentDojoCorpus, type CorpusCall } from '../agentdojo-corpus.js';
import type { AgentDojoSuite } from '../agentdojo-suite.js';
import type { SuiteToolProvenance } from '../suite-tool.js';
import { SLACK_ATTACKER_VALUES, SLACK_SECURITY, SLACK_UTILITY } from './slack-checks.js';
import { externalChannel, type SlackEnvironment } from './slack-environment.js';
import { slackTools } from './slack-tools.js';

/** The name of the External channel in the corpus's ground truth, computed from the default environment. */
const DEFAULT_EXTERNAL = 'External_0';

/**
 * The ground truth on `pre`: AgentDojo computes the External channel's name from the pre-environment, so under
 * attack (the channel's name carries the attack text) the legitimate calls name the renamed channel.
 */
function groundTruth(task: { ground_truth_calls: readonly CorpusCall[] }, pre: SlackEnvironment): CorpusCall[] {
  const ext = externalChannel(pre) ?? DEFAULT_EXTERNAL;
  return task.ground_truth_calls.map((call) => ({
    function: call.function,
    args: Object.fromEntries(
      Object.entries(call.args).map(([name, value]) => [name, value === DEFAULT_EXTERNAL ? ext : value]),
    ),
  }));
}

const workspaceData = (source: string) => ({ trust: Trust.Trusted, source: Source.application(source) });
const thirdParty = (source: string) => ({ trust: Trust.Untrusted, source: Source.external(source) });

/**
 * The provenance arm's declarations, no human in the loop (every rule denies or allows):
 * - results: the workspace's users, memberships and members' messages are its own data (trusted); channel names
 *   are not (anyone, an external guest too, names a channel: `External_…` carries the attack), nor web pages;
 * - destinations: whom a message, an invitation or a membership change goes to, the URL visited or posted to,
 *   must not come from untrusted content (`trusted_only`), and a message body's links, e-mail addresses and
 *   identifiers must not either; the channel and the invitee's e-mail address carry no rule (the user points at
 *   an External channel or at a web page for them).
 */
function provenance(tool: string): SuiteToolProvenance {
  switch (tool) {
    case 'get_channels':
      return { results: thirdParty('slack-channel-names') };
    case 'get_webpage':
      return { results: thirdParty('web'), policy: { untrustedContext: 'allow', arguments: { url: 'trusted_only' } } };
    case 'post_webpage':
      return {
        results: workspaceData('web'),
        policy: { untrustedContext: 'allow', arguments: { url: 'trusted_only' } },
      };
    case 'send_direct_message':
      return {
        results: workspaceData('slack'),
        policy: { untrustedContext: 'allow', arguments: { recipient: 'trusted_only', body: 'trusted_only' } },
      };
    case 'send_channel_message':
      return { results: workspaceData('slack'), policy: { untrustedContext: 'allow', arguments: { body: 'trusted_only' } } };
    case 'invite_user_to_slack':
    case 'add_user_to_channel':
    case 'remove_user_from_slack':
      return { results: workspaceData('slack'), policy: { untrustedContext: 'allow', arguments: { user: 'trusted_only' } } };
    default:
      return { results: workspaceData('slack') };
  }
}

/** AgentDojo's `slack` suite (v1.2.1): 11 tools, 21 user tasks, 5 injection tasks, 105 pairs. */
export function slackSuite(): AgentDojoSuite<SlackEnvironment> {
  const corpus = agentDojoCorpus('slack');
  return {
    name: 'slack',
    corpus,
    tools: slackTools(corpus),
    groundTruth,
    utility: SLACK_UTILITY,
    security: SLACK_SECURITY,
    attackerValues: SLACK_ATTACKER_VALUES,
    provenance,
  };
}
