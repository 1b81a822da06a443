import { describe, expect, it } from '@jest/globals';
import type { ActionContext } from '../context/action-context.js';
import { Trust } from '../context-release/trust.js';
import { labelContent } from '../provenance/labelled-content.js';
import { ProvenanceLabels } from '../provenance/provenance-labels.js';
import { ProvenanceSource } from '../provenance/provenance-source.js';
import { ProvenanceWindow } from '../provenance/provenance-window.js';
import { principalKeyOf } from '../context/actor-key.js';
import { RuntimeCallWindows } from './runtime-call-windows.js';

const alice: ActionContext = { actor: { id: 'alice' }, tenant: 'acme', metadata: { conversationId: 'c-1' } };
const mallory: ActionContext = { actor: { id: 'mallory' }, tenant: 'acme', metadata: { conversationId: 'c-1' } };
const call = { id: 'call_0', input: { recipient: 'DE89370400440532013000', amount: 25 } };
const trusted = ProvenanceWindow.of([labelContent('pay it', ProvenanceSource.user('principal'), Trust.Trusted)]);

function windowsAs(current: { context: ActionContext }) {
  return new RuntimeCallWindows(new ProvenanceLabels(), {
    context: () => current.context,
    principal: (context) => principalKeyOf(context),
  });
}

describe('RuntimeCallWindows: a window is its principal’s', () => {
  it('attack: another actor naming the same conversation id and call leaves no window for Alice’s call', () => {
    const current = { context: mallory };
    const windows = windowsAs(current);
    windows.remember(call, trusted);
    current.context = alice;
    expect(windows.windowOf(call)).toBeUndefined();
  });

  it('control: Alice’s own call in her conversation finds its window', () => {
    const current = { context: alice };
    const windows = windowsAs(current);
    windows.remember(call, trusted);
    current.context = { ...alice };
    expect(windows.windowOf(call)).toBe(trusted);
  });
});
