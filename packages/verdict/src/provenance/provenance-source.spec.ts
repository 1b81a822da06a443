import { describe, expect, it } from '@jest/globals';
import { Source } from '../context-release/source.js';
import { InvalidReleaseIdentifierError } from '../context-release/invalid-release-identifier.error.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { ProvenanceSource, ProvenanceSourceKind } from './provenance-source.js';

describe('ProvenanceSource', () => {
  it("converts context release's sources", () => {
    expect(ProvenanceSource.of(Source.external('carrier-api')).toString()).toBe('external:carrier-api');
    expect(ProvenanceSource.of(Source.user('chat')).toString()).toBe('user:chat');
  });

  it('refuses an application-chosen name outside [A-Za-z0-9._-]', () => {
    expect(() => ProvenanceSource.mcp('files server')).toThrow(InvalidReleaseIdentifierError);
  });

  it('names a tool whose name is not an identifier by its fingerprint, without failing', () => {
    const name = 'read file: <script>';
    expect(ProvenanceSource.named(ProvenanceSourceKind.Tool, name).toString()).toBe(
      `tool:sha256-${fingerprintString(name).slice(0, 16)}`,
    );
    expect(ProvenanceSource.named(ProvenanceSourceKind.Tool, 'read_file').toString()).toBe('tool:read_file');
  });
});
