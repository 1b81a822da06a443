import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type CanActivate, Controller, type ExecutionContext, Injectable, Post, UseGuards } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import {
  InMemoryExecutionClaimStore,
  InMemoryReviewItemStore,
  InProcessDeferredQueue,
  type ReviewItemStore,
  ReviewEndpoint,
  ReviewRequest,
  ReviewService,
  VerdictModule,
  type VerifiedReviewRequest,
} from '@verdict/nestjs';
import { TypeOrmReviewItemStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource, refundFixture } from '@verdict/testing-kit';

@Injectable()
class SignedIn implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest();
    if (req.headers['x-person']) req.person = String(req.headers['x-person']);
    return true;
  }
}

@Controller('reviews')
@UseGuards(SignedIn)
class ReviewController {
  constructor(private readonly reviews: ReviewService) {}
  @Post(':itemId/approve')
  @ReviewEndpoint()
  approve(@ReviewRequest() { item, reviewer }: VerifiedReviewRequest) {
    return this.reviews.approve(item.itemId, reviewer);
  }
}

const backends: Array<[string, () => Promise<{ items: ReviewItemStore; close(): Promise<void> }>]> = [
  ['memory', async () => ({ items: new InMemoryReviewItemStore(), close: async () => {} })],
  ...databaseEngines().map((engine): (typeof backends)[number] => [
    engine.name,
    async () => {
      const dataSource: DataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
      return { items: new TypeOrmReviewItemStore(dataSource), close: () => dropDataSource(dataSource) };
    },
  ]),
];

describe.each(backends)('review endpoint, item id %%00 [%s]', (engine, open) => {
  let backend: Awaited<ReturnType<(typeof backends)[number][1]>>;
  beforeAll(async () => { backend = await open(); });
  afterAll(async () => backend?.close());

  it('answers 404 for /reviews/rvw_%00x/approve', async () => {
    const fixture = refundFixture({ record: async () => {} });
    const moduleRef = await Test.createTestingModule({
      imports: [
        VerdictModule.forRoot({
          abilityFactory: fixture.abilityFactory,
          capabilities: [fixture.refund],
          executionClaims: new InMemoryExecutionClaimStore(),
          actorKey: fixture.actorKey,
          review: { items: backend.items, queue: new InProcessDeferredQueue(), rehydrate: fixture.rehydrate, actorKey: fixture.actorKey },
          reviewEndpoint: {
            reviewer: (ctx) => {
              const person = ctx.switchToHttp().getRequest().person as string | undefined;
              return person === undefined ? null : { id: person, context: fixture.contextOf(person) };
            },
          },
        }),
      ],
      controllers: [ReviewController],
      providers: [SignedIn],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    const response = await request(app.getHttpServer()).post('/reviews/rvw_%00x/approve').set('x-person', 'staff:7');
    console.log(engine, 'POST /reviews/rvw_%00x/approve ->', response.status, JSON.stringify(response.body));
    await app.close();
    expect(response.status).toBe(404);
  });
});
