import { Source } from '../context-release/source.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { type ProvenanceSource, ProvenanceSourceKind } from './provenance-source.js';

/**
 * The context release source a provenance source's text is released under, to an approver (ADR 0033):
 * `application`, `user` and `external` keep their kind and name (a label made from a release `Source`
 * converts back to it); every other kind is external, named `<kind>.<name>` — `tool:products.view` is
 * released as `external:tool.products.view`, `mcp:files` as `external:mcp.files` — or `<kind>.sha256-<16 hex>`
 * when that would exceed 128 characters.
 *
 * @example releaseSourceOf(ProvenanceSource.retrieval('help-center')) // Source.external('retrieval.help-center')
 */
export function releaseSourceOf(source: ProvenanceSource): Source {
  if (source.kind === ProvenanceSourceKind.Application) return Source.application(source.name);
  if (source.kind === ProvenanceSourceKind.User) return Source.user(source.name);
  if (source.kind === ProvenanceSourceKind.External) return Source.external(source.name);
  const name = `${source.kind}.${source.name}`;
  return Source.external(
    name.length <= 128 ? name : `${source.kind}.sha256-${fingerprintString(source.name).slice(0, 16)}`,
  );
}
