import { type AgentOutputItem, type Model, type ModelRequest, type ModelResponse, Usage } from '@openai/agents';

/** One model turn: function calls (name, input, id) or a final text. */
export type AgentsTurn =
  { readonly toolCalls: readonly { name: string; input: unknown; id: string }[] } | { readonly text: string };

/** A model answering `turns` in order; the model is outside the project, the Agents SDK's runner is real. */
export class ScriptedAgentsModel implements Model {
  readonly requests: ModelRequest[] = [];
  private next = 0;

  constructor(private readonly turns: readonly AgentsTurn[]) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const turn = this.turns[this.next++];
    if (turn === undefined) throw new Error('the scripted model has no turn left');
    const output: AgentOutputItem[] =
      'text' in turn
        ? [
            {
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: turn.text }],
            },
          ]
        : turn.toolCalls.map(({ name, input, id }) => ({
            type: 'function_call',
            callId: id,
            name,
            arguments: JSON.stringify(input),
            status: 'completed',
          }));
    return { usage: new Usage(), output };
  }

  getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the scripted model does not stream');
  }
}
