import type { CallbackManagerForRetrieverRun } from '@langchain/core/callbacks/manager';
import type { DocumentInterface } from '@langchain/core/documents';
import { BaseRetriever, type BaseRetrieverInterface } from '@langchain/core/retrievers';
import { Trust } from '../context-release/trust.js';
import type { ProvenanceSource } from '../provenance/provenance-source.js';
import type { ProvenanceTracker } from './provenance-tracker.js';

/**
 * A retriever whose documents are labelled untrusted, from their index, before anyone reads them: wherever a
 * document's text enters a tracked window (as a message the application builds, or a tool result), it carries
 * `retrieval:<index>` rather than the label of the message it travels in. Make it with
 * `ProvenanceTracker.retriever`.
 *
 * @example const docs = await tracker.retriever(vectorStore.asRetriever(), 'help-center').invoke(question);
 */
export class LabelledRetriever extends BaseRetriever {
  override lc_namespace = ['verdict', 'provenance'];

  constructor(
    private readonly inner: BaseRetrieverInterface,
    private readonly tracker: Pick<ProvenanceTracker, 'label'>,
    private readonly source: ProvenanceSource,
  ) {
    super();
  }

  override async _getRelevantDocuments(
    query: string,
    runManager?: CallbackManagerForRetrieverRun,
  ): Promise<DocumentInterface[]> {
    const documents = await this.inner.invoke(query, runManager?.getChild('verdict-labelled'));
    for (const document of documents) await this.tracker.label(document.pageContent, this.source, Trust.Untrusted);
    return documents;
  }
}
