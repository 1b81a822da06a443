import { afterEach, describe, expect, it } from '@jest/globals';
import type { INestApplicationContext } from '@nestjs/common';
import { Controller, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createMongoAbility } from '@casl/ability';
import { DataSource, type DataSourceOptions, type MigrationInterface } from 'typeorm';
import {
  FindingCode,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryReviewItemStore,
  InProcessDeferredQueue,
  ReviewEndpoint,
  Severity,
  VerdictAuditModule,
  VerdictModule,
  WiringAudit,
  type WiringAuditReport,
} from '@verdict/nestjs';
import { TypeOrmRateLimitStore, TypeOrmReviewItemStore, verdictMigrations } from '@verdict/nestjs/typeorm';
import { LabModule } from '../../apps/storefront-lab/src/lab.module.js';
import { miswiredAppModule } from '../../libs/testing/src/fixtures/miswired-app.module.js';

const apps: INestApplicationContext[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function audit(
  module: Parameters<typeof NestFactory.createApplicationContext>[0],
  testEnvironment = false,
): Promise<WiringAuditReport> {
  const app = await NestFactory.createApplicationContext(module, { logger: false });
  apps.push(app);
  return app.get(WiringAudit).run({ testEnvironment });
}

const codesOf = (report: WiringAuditReport) =>
  report.findings.map((finding) => `${finding.code} ${finding.subject}`).sort();

describe('verdict validate: the wiring audit', () => {
  it('reports every finding on a deliberately miswired application', async () => {
    const report = await audit(miswiredAppModule());

    expect(codesOf(report)).toEqual(
      [
        `${FindingCode.AgentToolNotGuarded} support/delete_tickets`,
        `${FindingCode.BehaviourChange} approvalEndpoint.requester`,
        `${FindingCode.BehaviourChange} provenance.unlabelledHistory`,
        `${FindingCode.BehaviourChange} provenance.unobserved`,
        `${FindingCode.ConfirmationWithoutApprovalEndpoint} tickets.refund`,
        `${FindingCode.InMemoryStore} approvals`,
        `${FindingCode.InMemoryStore} containment.store`,
        `${FindingCode.InMemoryStore} executionClaims`,
        `${FindingCode.InMemoryStore} trajectories`,
        `${FindingCode.MutatingWithoutAtMostOnce} tickets.refund`,
        `${FindingCode.NullEvidenceRecorder} evidence`,
        `${FindingCode.PendingMigrations} DataSource (better-sqlite3)`,
        `${FindingCode.PiiToRemoteZone} application:ticket->gpt@public-cloud`,
        `${FindingCode.ResultPathsWithoutFormat} tickets.view`,
        `${FindingCode.ProvenanceRulesUnchecked} tickets.reassign`,
        `${FindingCode.ProvenanceRecordKeys} tickets.payout`,
        `${FindingCode.ReviewEndpointWithoutHooks} ReviewsController.approve`,
        `${FindingCode.ShadowMode} tickets.view`,
        `${FindingCode.VerdictMigrationsNotRegistered} DataSource (better-sqlite3)`,
      ].sort(),
    );
    // Every check of the audit fired at least once.
    expect(new Set(report.findings.map((finding) => finding.code))).toEqual(new Set(Object.values(FindingCode)));
    // Most serious first.
    expect(report.findings[0].severity).toBe(Severity.Critical);
    expect(report.findings.at(-1)?.severity).toBe(Severity.Low);
    expect(report.findings.find((f) => f.code === FindingCode.PendingMigrations)?.message).toContain(
      'CreateTickets1700000000000',
    );
  });

  it('names a capability that labels its results per path without a format, and says what to declare', async () => {
    const report = await audit(miswiredAppModule());

    expect(report.findings.filter((f) => f.code === FindingCode.ResultPathsWithoutFormat)).toEqual([
      {
        code: FindingCode.ResultPathsWithoutFormat,
        severity: Severity.Low,
        subject: 'tickets.view',
        message:
          "Capability \"tickets.view\" labels its results per path but declares no results.format: a result that does not parse as JSON is untrusted as a whole. Declare results.format ('json' or 'yaml').",
      },
    ]);
  });

  it('names a capability whose provenance rules sit on a DTO class it cannot read, with the paths', async () => {
    const report = await audit(miswiredAppModule());

    expect(report.findings.filter((f) => f.code === FindingCode.ProvenanceRulesUnchecked)).toEqual([
      {
        code: FindingCode.ProvenanceRulesUnchecked,
        severity: Severity.Low,
        subject: 'tickets.reassign',
        message:
          'Capability "tickets.reassign" has provenance rules for arguments "assigne", "assignee", but its arguments are a DTO class whose schema Verdict cannot read: whether each path names an argument that can yield a value provenance can trace is not checked, and a rule that cannot is inert. Check the paths by hand, or declare the arguments with zod.',
      },
    ]);
    // Utility: rules on zod schemas are checked at boot and not reported (the lab's `iban: 'trusted_only'`, below).
  });

  it('lists every capability with its gates, policies and tools', async () => {
    const report = await audit(miswiredAppModule());

    expect(report.capabilities).toEqual([
      {
        name: 'tickets.refund',
        action: 'refund',
        subject: 'Ticket',
        gates: ['validation', 'target', 'casl', 'requiresConfirmation'],
        policies: { executionTarget: 'accept_stale_snapshot ticket-id', requiresConfirmation: 'Refunds move money' },
        mutates: true,
        tools: [],
      },
      {
        name: 'tickets.close',
        action: 'close',
        subject: 'Ticket',
        gates: ['validation', 'target', 'casl', 'atMostOnce'],
        policies: { executionTarget: 'accept_stale_snapshot ticket-id', atMostOnce: 'close-ticket' },
        mutates: true,
        tools: [],
      },
      {
        name: 'tickets.view',
        action: 'read',
        subject: 'Ticket',
        gates: ['validation', 'target', 'casl'],
        policies: { executionTarget: 'accept_stale_snapshot ticket-id' },
        mutates: false,
        tools: ['view_ticket (bound)'],
      },
      {
        name: 'tickets.reassign',
        action: 'reassign',
        subject: 'Ticket',
        gates: ['validation', 'target', 'casl'],
        policies: { executionTarget: 'accept_stale_snapshot ticket-id' },
        mutates: false,
        tools: [],
      },
      {
        name: 'tickets.payout',
        action: 'payout',
        subject: 'Ticket',
        gates: ['validation', 'target', 'casl'],
        policies: { executionTarget: 'accept_stale_snapshot ticket-id' },
        mutates: false,
        tools: [],
      },
    ]);
    expect(report.agents).toEqual([{ name: 'support', tools: ['view_ticket', 'delete_tickets'] }]);
    expect(report.notes.some((note) => note.includes('ADR 0014'))).toBe(true);
  });

  it("reports the review lane's in-memory store, an in-process queue nobody works, and its TypeORM store's DataSource without Verdict's migrations", async () => {
    const lane = (items: object, work = true) => ({
      items,
      queue: new InProcessDeferredQueue(),
      rehydrate: () => null,
      actorKey: (actor: { id: string }) => actor.id,
      work,
    });
    const app = (review: ReturnType<typeof lane>) => {
      @Module({})
      class LaneAppModule {}
      return {
        module: LaneAppModule,
        imports: [
          VerdictModule.forRoot({
            abilityFactory: { createForContext: () => createMongoAbility() },
            evidence: new InMemoryEvidenceRecorder(),
            executionClaims: new InMemoryExecutionClaimStore(),
            review: review as never,
          }),
          VerdictAuditModule,
        ],
      };
    };
    const webOnly = codesOf(await audit(app(lane(new InMemoryReviewItemStore(), false))));
    expect(webOnly).toEqual(
      expect.arrayContaining([
        `${FindingCode.InMemoryStore} review.items`,
        `${FindingCode.InMemoryStore} review.queue`,
      ]),
    );
    // Control: one process working its own in-process queue is a deployment of its own (the lab's).
    expect(codesOf(await audit(app(lane(new InMemoryReviewItemStore()))))).not.toContain(
      `${FindingCode.InMemoryStore} review.queue`,
    );

    const reviewDb = new DataSource({ type: 'better-sqlite3', database: ':memory:', migrations: [] });
    await reviewDb.initialize();
    try {
      const durable = codesOf(await audit(app(lane(new TypeOrmReviewItemStore(reviewDb)))));
      expect(durable).toContain(`${FindingCode.VerdictMigrationsNotRegistered} DataSource (better-sqlite3)`);
      expect(durable).not.toContain(`${FindingCode.InMemoryStore} review.items`);
    } finally {
      await reviewDb.destroy();
    }
  });

  it('reports a review route whose module has hooks but no review lane; with the lane, none (control)', async () => {
    @Controller('reviews')
    class ReviewsController {
      @Post(':itemId/approve')
      @ReviewEndpoint()
      approve(): void {}
    }
    const app = (review?: object) => {
      @Module({})
      class ReviewRouteModule {}
      return {
        module: ReviewRouteModule,
        controllers: [ReviewsController],
        imports: [
          VerdictModule.forRoot({
            abilityFactory: { createForContext: () => createMongoAbility() },
            evidence: new InMemoryEvidenceRecorder(),
            executionClaims: new InMemoryExecutionClaimStore(),
            reviewEndpoint: { reviewer: () => null },
            ...(review === undefined ? {} : { review: review as never }),
          }),
          VerdictAuditModule,
        ],
      };
    };
    const route = `${FindingCode.ReviewEndpointWithoutHooks} ReviewsController.approve`;
    expect(codesOf(await audit(app()))).toContain(route);
    const lane = {
      items: new InMemoryReviewItemStore(),
      queue: new InProcessDeferredQueue(),
      rehydrate: () => null,
      actorKey: (actor: { id: string }) => actor.id,
    };
    expect(codesOf(await audit(app(lane)))).not.toContain(route);
  });

  it('does not report in-memory stores or the null recorder in a test environment, nor a zone declared local', async () => {
    const app = await NestFactory.createApplicationContext(miswiredAppModule(), { logger: false });
    apps.push(app);
    const report = await app
      .get(WiringAudit)
      .run({ testEnvironment: true, localTrustZones: ['local-machine', 'public-cloud'] });

    const codes = new Set(report.findings.map((finding) => finding.code));
    expect(codes.has(FindingCode.InMemoryStore)).toBe(false);
    expect(codes.has(FindingCode.NullEvidenceRecorder)).toBe(false);
    expect(codes.has(FindingCode.PiiToRemoteZone)).toBe(false);
  });

  it('reports nothing on the storefront lab', async () => {
    const report = await audit({
      module: class LabAudit {},
      imports: [LabModule.forRoot({ database: ':memory:' }), VerdictAuditModule],
    });

    expect(report.findings).toEqual([]);
    expect(report.capabilities.length).toBeGreaterThan(0);
    expect(report.releaseRoutes).toEqual([
      'application:customer-profile->ollama@local-machine [pii; trusted]',
      // The quarantine page's bill, shown to the customer who approves its payment.
      'external:order-attachments->approval-screen@customer [internal; untrusted]',
    ]);
  });
});

/** An application's own migration, beside Verdict's. */
class CreateTickets1700000000000 implements MigrationInterface {
  async up(): Promise<void> {}
  async down(): Promise<void> {}
}

describe('verdict validate: the migrations of a DataSource the application initializes after boot', () => {
  /** The audit of an application whose rate-limit store holds a DataSource of `migrations`, never initialized. */
  const auditUninitialized = async (migrations: DataSourceOptions['migrations']) => {
    const dataSource = new DataSource({ type: 'better-sqlite3', database: ':memory:', migrations });
    const report = await audit({
      module: class UninitializedApp {},
      imports: [
        VerdictModule.forRoot({
          abilityFactory: { createForContext: () => createMongoAbility() },
          rateLimits: new TypeOrmRateLimitStore(dataSource),
        }),
        VerdictAuditModule,
      ],
    });
    return { codes: codesOf(report), notes: report.notes };
  };
  const notRegistered = `${FindingCode.VerdictMigrationsNotRegistered} DataSource (better-sqlite3)`;

  it("attack: Verdict's migrations listed as classes are registered, though TypeORM has not built them yet", async () => {
    const { codes, notes } = await auditUninitialized([...verdictMigrations, CreateTickets1700000000000]);
    expect(codes).not.toContain(notRegistered);
    expect(notes).toContain('DataSource (better-sqlite3) is not initialized: pending migrations were not checked.');
  });

  it('attack: migrations listed as paths, which are not loaded before initialize(), are a note, not a finding', async () => {
    const { codes, notes } = await auditUninitialized([...verdictMigrations.slice(1), 'dist/migrations/*.js']);
    expect(codes).not.toContain(notRegistered);
    expect(notes.some((note) => note.includes('lists paths') && note.includes('verdictMigrations'))).toBe(true);
  });

  it("control: an uninitialized DataSource whose classes lack Verdict's migrations is still reported", async () => {
    const { codes } = await auditUninitialized([CreateTickets1700000000000]);
    expect(codes).toContain(notRegistered);
    expect(codes).not.toContain(`${FindingCode.PendingMigrations} DataSource (better-sqlite3)`);
  });
});
