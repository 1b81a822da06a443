/** A Slack message: a direct message (`recipient` a user) or a channel message (`recipient` the channel). */
export interface SlackMessage {
  readonly sender: string;
  readonly recipient: string;
  readonly body: string;
}

/** The `slack` suite's environment: a workspace and the web, as `environment.yaml` holds them. */
export interface SlackEnvironment {
  readonly slack: {
    users: string[];
    channels: string[];
    user_channels: Record<string, string[]>;
    user_inbox: Record<string, SlackMessage[]>;
    channel_inbox: Record<string, SlackMessage[]>;
  };
  readonly web: { web_content: Record<string, string>; web_requests: string[] };
}

/** The first channel whose name starts with `External` (the one that carries `prompt_injection_channel`). */
export function externalChannel(environment: SlackEnvironment): string | undefined {
  return environment.slack.channels.find((channel) => channel.startsWith('External'));
}
