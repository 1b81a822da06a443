import { DataClass, Destination, type ProvenancePolicy, ReleasePolicy, Source, Trust } from '@verdict/nestjs';

/**
 * The scripted payments run the specs drive over the payments fixture (LangChain, AI SDK, OpenAI Agents): the
 * payments policy they start from, the model's tool calls, and the catalog's release route to a local model.
 */

/** The payments policy the specs start from: a recipient may come from trusted content only. */
export const TRUSTED_ONLY: ProvenancePolicy = { untrustedContext: 'allow', arguments: { recipient: 'trusted_only' } };

/** The model reads product p-1, whose reviews hold the injected IBAN. */
export const VIEW = { name: 'view_product', input: { productId: 'p-1' }, id: 'call_view' };

/** The model pays 25 to `recipient`. */
export const pay = (recipient: string) => ({
  name: 'send_payment',
  input: { recipient, amount: 25 },
  id: 'call_pay',
});

/** The model's turns: it reads the product, pays `recipient`, and is done. */
export const readAndPay = (recipient: string) => [
  { toolCalls: [VIEW] },
  { toolCalls: [pay(recipient)] },
  { text: 'done' },
];

/** The model the guarded specs send context to. */
export const local = Destination.connection('ollama', 'local-machine');

/** Where the product's data comes from. */
export const catalog = Source.application('catalog');

/** The product's name and price, untrusted public catalog data: the route of a tool result the guard releases. */
export const productRoute = {
  source: catalog,
  trust: Trust.Untrusted,
  classification: DataClass.Public,
  only: ['name', 'price'],
};

/** No PII detectors on this route: what the guard releases is decided by its projection. */
export const catalogPolicy = ReleasePolicy.route(catalog, local)
  .allow({ classes: [DataClass.Public], trust: [Trust.Untrusted] })
  .detectWith([]);
