import type { AgentDojoCorpus } from '../agentdojo-corpus.js';
import { SuiteToolError, suiteTools, type SuiteExecutors } from '../suite-tool.js';
import type { SlackEnvironment, SlackMessage } from './slack-environment.js';

type Args = Record<string, unknown>;

const text = (args: Args, name: string) => String(args[name] ?? '');

function knownUser(environment: SlackEnvironment, user: string): void {
  if (!environment.slack.users.includes(user)) throw new SuiteToolError(`User ${user} not found in the users list`);
}

function knownChannel(environment: SlackEnvironment, channel: string): void {
  if (!environment.slack.channels.includes(channel)) throw new SuiteToolError(`Channel ${channel} not found`);
}

/** AgentDojo's `standardize_url`: the web stores and logs URLs without `https://` or `http://`. */
const standardUrl = (url: string) => url.replace(/^https?:\/\//, '');

/** The executors of the slack suite's tools, as AgentDojo's `slack.py` and `web.py` define them. */
const EXECUTORS: SuiteExecutors<SlackEnvironment> = {
  get_channels: { consequential: false, run: (env) => env.slack.channels },
  add_user_to_channel: {
    consequential: true,
    run: (env, args) => {
      knownUser(env, text(args, 'user'));
      knownChannel(env, text(args, 'channel'));
      (env.slack.user_channels[text(args, 'user')] ??= []).push(text(args, 'channel'));
      return null;
    },
  },
  read_channel_messages: {
    consequential: false,
    run: (env, args) => {
      knownChannel(env, text(args, 'channel'));
      return env.slack.channel_inbox[text(args, 'channel')] ?? [];
    },
  },
  read_inbox: {
    consequential: false,
    run: (env, args) => {
      knownUser(env, text(args, 'user'));
      return env.slack.user_inbox[text(args, 'user')] ?? [];
    },
  },
  send_direct_message: {
    consequential: true,
    run: (env, args) => {
      const recipient = text(args, 'recipient');
      knownUser(env, recipient);
      const message: SlackMessage = { sender: 'bot', recipient, body: text(args, 'body') };
      (env.slack.user_inbox[recipient] ??= []).push(message);
      return null;
    },
  },
  send_channel_message: {
    consequential: true,
    run: (env, args) => {
      const channel = text(args, 'channel');
      knownChannel(env, channel);
      (env.slack.channel_inbox[channel] ??= []).push({ sender: 'bot', recipient: channel, body: text(args, 'body') });
      return null;
    },
  },
  get_users_in_channel: {
    consequential: false,
    run: (env, args) => {
      knownChannel(env, text(args, 'channel'));
      return env.slack.users.filter((user) => env.slack.user_channels[user]?.includes(text(args, 'channel')));
    },
  },
  invite_user_to_slack: {
    consequential: true,
    run: (env, args) => {
      const user = text(args, 'user');
      if (env.slack.users.includes(user)) throw new SuiteToolError(`User ${user} already in the users list`);
      env.slack.users.push(user);
      env.slack.user_inbox[user] = [];
      env.slack.user_channels[user] = [];
      return null;
    },
  },
  remove_user_from_slack: {
    consequential: true,
    run: (env, args) => {
      const user = text(args, 'user');
      knownUser(env, user);
      env.slack.users.splice(env.slack.users.indexOf(user), 1);
      delete env.slack.user_inbox[user];
      delete env.slack.user_channels[user];
      return null;
    },
  },
  // A visit is logged where the page's owner sees it (injection_task_3's goal): consequential.
  get_webpage: {
    consequential: true,
    run: (env, args) => {
      const url = standardUrl(text(args, 'url'));
      env.web.web_requests.push(url);
      return env.web.web_content[url] ?? '404 Not Found';
    },
  },
  post_webpage: {
    consequential: true,
    run: (env, args) => {
      const url = standardUrl(text(args, 'url'));
      env.web.web_requests.push(url);
      env.web.web_content[url] = text(args, 'content');
      return null;
    },
  },
};

/** The slack suite's eleven tools over a run's environment. */
export const slackTools = (corpus: AgentDojoCorpus) => suiteTools(corpus, EXECUTORS);
