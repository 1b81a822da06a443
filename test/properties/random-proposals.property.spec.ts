import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { ActionContextStore, InMemoryEvidenceRecorder, VerdictModule, VerdictService, VerdictError } from '@verdict/nestjs';
import { VerdictLangChainModule, VerdictTools } from '@verdict/nestjs/langchain';
import { DataSource } from 'typeorm';
import { StorefrontAbilityFactory, StorefrontCapabilities, StorefrontContexts, createLookupOrderTool, openSqliteStorefront } from '@verdict/storefront';

describe('probe', () => {
  it('probes', async () => {
    const db = await openSqliteStorefront();
    const moduleRef = await Test.createTestingModule({
      imports: [VerdictModule.forRoot({ abilityFactory: new StorefrontAbilityFactory(db), evidence: new InMemoryEvidenceRecorder() }), VerdictLangChainModule],
      providers: [{ provide: DataSource, useValue: db }, StorefrontCapabilities],
    }).compile();
    const caps = moduleRef.get(StorefrontCapabilities);
    const seen: unknown[] = [];
    const original = caps.view.bind(caps);
    const w = (a: any) => { seen.push(a); return original(a); };
    for (const key of Reflect.getMetadataKeys(StorefrontCapabilities.prototype.view)) Reflect.defineMetadata(key, Reflect.getMetadata(key, StorefrontCapabilities.prototype.view), w);
    (caps as any).view = w;
    await moduleRef.init();
    const contexts = moduleRef.get(ActionContextStore);
    const service = moduleRef.get(VerdictService);
    const tool = moduleRef.get(VerdictTools).bound(createLookupOrderTool(db), 'orders.view');
    const r = await contexts.run(StorefrontContexts.customer72, () => service.execute({ capability: 'orders.view', arguments: { orderId: 1002 } }));
    console.log('spy', r.executed, seen.length);
    for (const depth of [5000]) {
      const args = JSON.parse('{"orderId":' + '['.repeat(depth) + ']'.repeat(depth) + '}');
      try {
        const m = await contexts.run(StorefrontContexts.customer72, () => tool.invoke({ name: 'lookup_order', args, id: 'c1', type: 'tool_call' }));
        console.log(depth, 'tool', (m as any).content);
      } catch (e) { console.log(depth, 'tool threw', (e as Error).constructor.name, (e as Error).message, e instanceof VerdictError, (e as Error).stack?.split('\n').slice(0, 12).join('\n')); }
      const args2 = JSON.parse('{"orderId":1002,"x":' + '['.repeat(depth) + ']'.repeat(depth) + '}');
      try {
        const m = await contexts.run(StorefrontContexts.customer72, () => tool.invoke({ name: 'lookup_order', args: args2, id: 'c1', type: 'tool_call' }));
        console.log(depth, 'tool2', (m as any).content);
      } catch (e) { console.log(depth, 'tool2 threw', (e as Error).constructor.name, (e as Error).message); }
      const a3 = JSON.parse('['.repeat(depth) + ']'.repeat(depth));
      try {
        const m = await contexts.run(StorefrontContexts.customer72, () => tool.invoke({ name: 'lookup_order', args: a3, id: 'c1', type: 'tool_call' }));
        console.log(depth, 'tool3', (m as any).content);
      } catch (e) { console.log(depth, 'tool3 threw', (e as Error).constructor.name, (e as Error).message); }
      const s = await contexts.run(StorefrontContexts.customer72, () => service.execute({ capability: 'orders.view', arguments: args }));
      console.log(depth, 'service', s.executed, s.decision.reason);
    }
    for (const args of [undefined, null, 'x', 1002, [1002], '{"orderId":1002}', NaN]) {
      try {
        const m = await contexts.run(StorefrontContexts.customer72, () => tool.invoke({ name: 'lookup_order', args: args as any, id: 'c1', type: 'tool_call' }));
        console.log(String(args), 'tool', (m as any).content);
      } catch (e) { console.log(String(args), 'tool threw', (e as Error).constructor.name, (e as Error).message); }
    }
    try {
      const s = await contexts.run(StorefrontContexts.customer72, () => service.execute({ capability: 'orders.view', arguments: { orderId: 1002 }, toolCallId: 5 as any }));
      console.log('numeric id', s.executed);
    } catch (e) { console.log('numeric id threw', (e as Error).constructor.name, (e as Error).message); }
    const t0 = performance.now();
    for (let i = 0; i < 1000; i++) await contexts.run(StorefrontContexts.customer72, () => service.execute({ capability: 'orders.view', arguments: { orderId: 1002 } }));
    console.log('1000 service', performance.now() - t0);
    const t1 = performance.now();
    for (let i = 0; i < 1000; i++) await contexts.run(StorefrontContexts.customer72, () => tool.invoke({ name: 'lookup_order', args: { orderId: 1002 }, id: 'c1', type: 'tool_call' }));
    console.log('1000 tool', performance.now() - t1);
    await moduleRef.close(); await db.destroy();
    expect(1).toBe(1);
  });
});
