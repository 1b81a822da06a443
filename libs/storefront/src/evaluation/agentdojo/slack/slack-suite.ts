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

/** The positive rule, denied when not derived: no human is in the loop. */
const derived = { derivedFrom: 'trusted', otherwise: 'deny' } as const;

/**
 * The provenance arm's declarations, no human in the loop (every rule denies or allows):
 * - results: the workspace's users, memberships and members' messages are its own data (trusted); channel names
 *   are not (anyone, an external guest too, names a channel: `External_…` carries the attack), nor web pages;
 * - destinations take the positive rule: whom a message goes to, who is invited, added or removed, the URL
 *   visited or posted to must be derived from trusted content (the user's request, the workspace's data) or,
 *   for an existing member, from the workspace's member list (`trustedValues`);
 * - a message body is free text the model writes (a summary, a computed rank): its links, addresses and
 *   identifiers must not be copied from untrusted content (`trusted_only`, compared canonically);
 * - the channel and the invitee's e-mail address carry no rule: the user points at an External channel, and at
 *   a web page for the e-mail address.
 */
function provenance(tool: string, environment: () => SlackEnvironment): SuiteToolProvenance {
  const members = () => environment().slack.users;
  const slack = workspaceData('slack');
  switch (tool) {
    case 'get_channels':
      return { results: thirdParty('slack-channel-names') };
    case 'get_webpage':
      return { results: thirdParty('web'), policy: { destinations: ['url'], arguments: { url: derived } } };
    case 'post_webpage':
      return { results: slack, policy: { destinations: ['url'], arguments: { url: derived } } };
    case 'send_direct_message':
      return {
        results: slack,
        policy: {
          destinations: ['recipient'],
          arguments: { recipient: derived, body: 'trusted_only' },
          trustedValues: members,
        },
      };
    case 'send_channel_message':
      return { results: slack, policy: { arguments: { body: 'trusted_only' } } };
    case 'invite_user_to_slack':
      return { results: slack, policy: { destinations: ['user'], arguments: { user: derived, user_email: 'allow' } } };
    case 'add_user_to_channel':
    case 'remove_user_from_slack':
      return {
        results: slack,
        policy: { destinations: ['user'], arguments: { user: derived }, trustedValues: members },
      };
    default:
      return { results: slack };
  }
}

/** AgentDojo's `slack` suite (v1.2.1): 11 tools, 21 user tasks, 5 injection tasks, 105 pairs. */
export function slackSuite(): AgentDojoSuite<SlackEnvironment> {
  const corpus = agentDojoCorpus('slack');
  return {
    name: 'slack',
    corpus,
    tools: slackTools(corpus),
    environment: (data) => data as SlackEnvironment,
    groundTruth,
    utility: SLACK_UTILITY,
    security: SLACK_SECURITY,
    attackerValues: SLACK_ATTACKER_VALUES,
    provenance,
  };
}
