import { describe, expect, it } from '@jest/globals';
import {
  CanActivate,
  Controller,
  ExecutionContext,
  Get,
  Injectable,
  Module,
  Param,
  ParseIntPipe,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { ActionContextInterceptor, type ActionContext, VerdictModule, VerdictService } from '@verdict/nestjs';
import { documentsFixture } from '../pipeline/documents.fixture.js';

/** Stands in for the application's authentication: the actor comes from a header the guard trusts. */
@Injectable()
class FakeAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest();
    req.user = { id: req.headers['x-actor'], tenant: 'acme' };
    return true;
  }
}

const yieldTurns = async (turns: number) => {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
};

async function setup() {
  const fixture = documentsFixture();
  const interleaving = fixture.abilityFactory.createForContext.bind(fixture.abilityFactory);
  // Yield a varying number of event-loop turns inside the pipeline so requests interleave.
  const abilityFactory = {
    async createForContext(context: ActionContext) {
      await yieldTurns(Math.floor(Math.random() * 5));
      return interleaving(context);
    },
  };

  @Controller('documents')
  class DocumentsController {
    constructor(private readonly verdict: VerdictService) {}

    @Get(':id')
    @UseGuards(FakeAuthGuard)
    @UseInterceptors(ActionContextInterceptor)
    async read(@Param('id', ParseIntPipe) id: number) {
      const result = await this.verdict.execute<{ id: number; title: string }>({
        capability: 'documents.read',
        arguments: { id },
      });
      return result.executed ? result.output : { denied: result.decision.disposition };
    }

    @Get('unbound/:id')
    async unbound(@Param('id', ParseIntPipe) id: number) {
      return this.verdict.execute({ capability: 'documents.read', arguments: { id } });
    }
  }

  @Module({ providers: [fixture.DocumentCapabilities], controllers: [DocumentsController] })
  class AppModule {}

  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory,
        resolveContext: (context) => {
          const user = context.switchToHttp().getRequest().user;
          // An unauthenticated request has no actor: the application hands Verdict nothing.
          return (user.id === undefined ? undefined : { actor: { id: user.id }, tenant: user.tenant }) as ActionContext;
        },
      }),
      AppModule,
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return { app, executions: fixture.executions };
}

describe('ActionContextInterceptor', () => {
  it('keeps 240 interleaved concurrent requests from two actors apart', async () => {
    const { app, executions } = await setup();
    const server = app.getHttpServer();
    const plan = Array.from({ length: 240 }, (_, i) => (i % 3 === 0 ? 'bob' : 'alice'));
    const responses = await Promise.all(plan.map((actor) => request(server).get('/documents/1').set('x-actor', actor)));

    responses.forEach((response, i) => {
      expect(response.status).toBe(200);
      expect(response.body).toEqual(plan[i] === 'alice' ? { id: 1, title: 'alice plan' } : { denied: 'deny' });
    });
    const aliceCount = plan.filter((actor) => actor === 'alice').length;
    expect(executions).toHaveLength(aliceCount);
    expect(executions.every((action) => (action.context.actor as { id: string }).id === 'alice')).toBe(true);
    await app.close();
  });

  it('fails closed when the request resolves to no context (unauthenticated)', async () => {
    const { app, executions } = await setup();
    const response = await request(app.getHttpServer()).get('/documents/1');
    expect(response.status).toBe(500);
    expect(executions).toHaveLength(0);
    await app.close();
  });

  it('fails closed on a route that binds no context', async () => {
    const { app, executions } = await setup();
    const response = await request(app.getHttpServer()).get('/documents/unbound/1');
    expect(response.status).toBe(500);
    expect(executions).toHaveLength(0);
    await app.close();
  });
});
