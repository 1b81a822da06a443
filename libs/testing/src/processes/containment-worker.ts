// A worker process of `startContainmentWorkers`: a Nest application context with Verdict on the test
// database (TypeORM containment store and evidence) and one capability, `notes.ping`. Run as compiled JS
// (the pool refuses a build older than the sources), never imported.
import 'reflect-metadata';
import { createMongoAbility } from '@casl/ability';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import {
  ActionContextStore,
  ContainmentService,
  ExecutionTargetPolicy,
  VerdictModule,
  VerdictService,
  defineCapability,
  fromProposal,
} from '@verdict/nestjs';
import { TypeOrmContainmentStore, TypeOrmEvidenceRecorder, verdictEntities } from '@verdict/nestjs/typeorm';
import type {
  ContainmentWorkerInit,
  ContainmentWorkerReply,
  ContainmentWorkerRequest,
  PingReply,
  SwitchReply,
} from './containment-protocol.js';
import { serveParent } from './worker-runtime.js';

const ping = defineCapability(
  {
    name: 'notes.ping',
    description: 'Ping a note',
    action: 'read',
    subject: 'Note',
    arguments: z.object({ note: z.number().int() }),
    resolveTarget: fromProposal(({ arguments: args }) => ({ note: (args as { note: number }).note })),
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<{ note: number }>({
      name: 'note-by-id',
      identity: (target) => target.note,
    }),
  },
  async () => 'pong',
);

serveParent<ContainmentWorkerInit, ContainmentWorkerRequest, ContainmentWorkerReply>(
  async ({ dataSource: options, cacheTtlMs }) => {
    const dataSource = await new DataSource({ ...options, entities: verdictEntities, migrations: [] }).initialize();
    @Module({
      imports: [
        VerdictModule.forRoot({
          abilityFactory: { createForContext: () => createMongoAbility([{ action: 'read', subject: 'Note' }]) },
          evidence: new TypeOrmEvidenceRecorder(dataSource),
          containment: { store: new TypeOrmContainmentStore(dataSource), cacheTtlMs },
          actorKey: (actor: string) => actor,
          capabilities: [ping],
        }),
      ],
    })
    class WorkerModule {}
    const app = await NestFactory.createApplicationContext(WorkerModule, { logger: ['error'] });
    const verdict = app.get(VerdictService);
    const contexts = app.get(ActionContextStore);
    const containment = app.get(ContainmentService);
    return {
      async handle(request) {
        if (request.kind === 'ping') {
          const startedAt = Date.now();
          const result = await contexts.run({ actor: request.actor, tenant: request.tenant }, () =>
            verdict.execute({ capability: 'notes.ping', arguments: { note: 1 } }),
          );
          return { executed: result.executed, stage: result.decision.stage, startedAt } satisfies PingReply;
        }
        const command = { scope: request.scope, subject: request.subject, reason: 'INC-7', by: 'operator:7' };
        const changed =
          request.kind === 'engage' ? (await containment.engage(command)).engaged : await containment.release(command);
        return { changed, committedAt: Date.now() } satisfies SwitchReply;
      },
      async close() {
        await app.close();
        await dataSource.destroy();
      },
    };
  },
);
