import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { type ZodType, z } from 'zod';
import { QuarantineExtractionError } from '../errors/quarantine-extraction.error.js';
import type { ProvenanceLabels } from '../provenance/provenance-labels.js';
import { QUARANTINE_SOURCE } from '../provenance/vouching-content.js';
import type { QuarantineService } from '../quarantine/quarantine.service.js';
import { labelOwnResult, labelsOwnResults, rememberOwnText } from './own-labelled-tool.js';

export { QUARANTINE_SOURCE };

/**
 * The tool the deciding model reads quarantined content with: `{ handle, schema, instruction? }`, where `schema`
 * names one of the application's schemas. It answers the value as JSON, labelled untrusted under the handle's
 * sources, or a fixed failure (`No <schema> value (<failure>).`) — never the quarantined model's text.
 */
export function quarantineExtractTool(
  quarantine: QuarantineService,
  labels: ProvenanceLabels,
  schemas: Readonly<Record<string, ZodType>>,
  name: string,
): StructuredToolInterface {
  const names = Object.keys(schemas);
  const extract = tool(
    async ({ handle, schema, instruction }: { handle: string; schema: string; instruction?: string }) => {
      try {
        const extraction = await quarantine.extract(handle, schemas[schema]!, { instruction });
        // The module's labels keep the value's label (without passages: another principal's identical value
        // shares them); this call's result carries the extraction's own items, with its source passages.
        labels.remember(extraction.text, extraction.content);
        return labelOwnResult(extraction.text, extraction.content);
      } catch (error) {
        if (!(error instanceof QuarantineExtractionError)) throw error;
        return rememberOwnText(labels, QUARANTINE_SOURCE, `No ${schema} value (${error.failure}).`);
      }
    },
    {
      name,
      description:
        `Read typed values from quarantined content (a handle a tool answered with). schema: one of ${names.join(', ')}. ` +
        'instruction: what to look for, in words.',
      schema: z.object({
        handle: z.string().describe('The handle, as the tool answered it'),
        schema: z.enum(names as [string, ...string[]]),
        instruction: z.string().optional(),
      }),
    },
  );
  return labelsOwnResults(extract);
}
